// The envelope resolves a tools/call to its tool once: the verdict carries the entry the contract serves at that address, which the rest of the request uses.
import { expect } from 'chai';
import { Contract } from '../../src/contract/runtime.js';
import { checkEnvelope } from '../../src/mcp/envelope.js';

const contract = Contract.load();
const call = (name: string, args?: unknown) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, ...(args !== undefined ? { arguments: args } : {}) } });

describe('checkEnvelope on tools/call', () => {
  it('carries the tool entry the contract serves at the address, with or without arguments', () => {
    for (const message of [call('referentiel_sources', {}), call('referentiel_sources')]) {
      const verdict = checkEnvelope(message, 'full', contract);
      expect(verdict).to.include({ kind: 'tool-call', id: 1, method: 'tools/call' });
      expect(verdict.kind === 'tool-call' ? verdict.tool : null).to.equal(contract.callableTool('full', 'referentiel_sources'));
    }
  });

  it('arguments that are not an object: the tool entry and the arguments as sent, for a tool error', () => {
    for (const args of [5, 'texte', [1, 2], null]) {
      const verdict = checkEnvelope(call('marches_rechercher', args), 'connectors', contract);
      expect(verdict.kind, JSON.stringify(args)).to.equal('tool-arguments');
      if (verdict.kind !== 'tool-arguments') continue;
      expect(verdict.tool).to.equal(contract.callableTool('connectors', 'marches_rechercher'));
      expect(verdict.arguments).to.deep.equal(args);
    }
  });

  it('a tool the address does not serve is refused with -32601 before any call', () => {
    expect(contract.callableTool('connectors', 'referentiel_cpv')).to.equal(undefined);
    expect(checkEnvelope(call('referentiel_cpv', 5), 'connectors', contract)).to.deep.equal({
      kind: 'refuse',
      status: 200,
      code: -32601,
      message: 'Outil inconnu à cette adresse : « referentiel_cpv ».',
      id: 1,
    });
  });

  it('other methods pass to the SDK without a tool', () => {
    expect(checkEnvelope({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, 'full', contract)).to.deep.equal({ kind: 'pass', id: 2, method: 'tools/list' });
  });
});
