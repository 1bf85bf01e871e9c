// The readable text version of a structured result, for MCP `content` (the data itself
// travels in `structuredContent`).

function scalar(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return value ? 'oui' : 'non';
  return String(value);
}

function render(value: unknown, indent: string, out: string[]): void {
  if (Array.isArray(value)) {
    if (!value.length) out.push(`${indent}(aucun)`);
    for (const item of value) {
      if (item !== null && typeof item === 'object') {
        const lines: string[] = [];
        render(item, `${indent}  `, lines);
        out.push(`${indent}- ${(lines[0] ?? '').trimStart()}`, ...lines.slice(1));
      } else out.push(`${indent}- ${scalar(item)}`);
    }
    return;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (v !== null && typeof v === 'object' && !(Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object'))) {
        out.push(`${indent}${key} :`);
        render(v, `${indent}  `, out);
      } else if (Array.isArray(v)) out.push(`${indent}${key} : ${v.length ? v.map(scalar).join(', ') : '(aucun)'}`);
      else out.push(`${indent}${key} : ${scalar(v)}`);
    }
    return;
  }
  out.push(`${indent}${scalar(value)}`);
}

export function readableText(value: unknown): string {
  const out: string[] = [];
  render(value, '', out);
  return out.join('\n');
}
