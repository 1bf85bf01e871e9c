// Transform: one catalogue entry into the MCP tool entry (schemas taken from the
// operation it runs; a historic name takes those of the tool it stands for).
import type { OperationEntry, ToolEntry } from '../../src/contract/types.js';
import type { ToolSource } from './contract-source.js';

export function toolEntry(tool: ToolSource, tools: ToolSource[], operations: Map<string, OperationEntry>): ToolEntry {
  const target = tool.status === 'alias' ? tools.find((t) => t.name === tool.alias_of) : tool;
  const opNames = target?.operations ?? [];
  const ops = opNames.map((n) => operations.get(n)).filter((o): o is OperationEntry => o !== undefined);
  const first = ops[0];
  const callable = tool.status !== 'preparation' && first !== undefined;
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description.trim(),
    status: tool.status,
    aliasOf: tool.status === 'alias' ? (tool.alias_of ?? null) : null,
    operations: opNames,
    // A historic name is the current tool under another name: same addresses, same scope.
    profiles: (tool.status === 'alias' ? target?.profiles : tool.profiles) ?? [],
    scope: (tool.status === 'alias' ? target?.scope : tool.scope) ?? first?.scope ?? 'mcp:read',
    effect: ops.some((o) => o.effect === 'write') ? 'write' : 'read',
    paidOnly: ops.some((o) => o.paidOnly),
    card: (tool.status === 'alias' ? target?.card : tool.card) ?? false,
    inputSchema: callable ? first.inputSchema : null,
    outputSchema: callable ? first.outputSchema : null,
    recipes: (tool.status === 'alias' ? target?.recipes : tool.recipes) ?? [],
  };
}
