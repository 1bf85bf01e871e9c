// Rule: no import cycle in src/ (type-only imports included), so that every layer can be read and loaded on its own.
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { cycles, importGraph } from '../helpers/import-graph.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('layout: the import graph of src/', () => {
  it('finds a cycle when there is one (the check itself)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
      ['e', ['e']],
    ]);
    expect(cycles(graph)).to.have.deep.members([['a', 'b', 'c'], ['e']]);
  });

  it('reads the imports of src/ (a known edge is there)', () => {
    const graph = importGraph(join(root, 'src'));
    expect(graph.get(join(root, 'src/call-path.ts'))).to.include(join(root, 'src/access/rules.ts'));
    expect(graph.size).to.be.greaterThan(80);
  });

  it('has no cycle', () => {
    const found = cycles(importGraph(join(root, 'src'))).map((c) => c.map((f) => relative(root, f)).join(' → '));
    expect(found, found.join('\n')).to.deep.equal([]);
  });
});
