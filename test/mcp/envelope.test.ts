// The envelope resolves a tools/call to its tool once: the verdict carries the entry the contract serves at that address, which the rest of the request uses.
import { expect } from 'chai';
import { Contract } from '../../src/contract/runtime.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { checkEnvelope, protocolVersionProblem } from '../../src/mcp/envelope.js';

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

  it('carries the arguments as read from the body, a __proto__ key kept as an own key (the SDK copy drops it)', () => {
    const message = JSON.parse('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"referentiel_naf","arguments":{"__proto__":{"prefix":"43"}}}}') as unknown;
    const verdict = checkEnvelope(message, 'full', contract);
    expect(verdict.kind).to.equal('tool-call');
    if (verdict.kind !== 'tool-call') return;
    expect(Object.keys(verdict.arguments ?? {})).to.deep.equal(['__proto__']);
    expect(Object.getPrototypeOf(verdict.arguments)).to.equal(Object.prototype);
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

describe('protocolVersionProblem', () => {
  const cases: { name: string; header: string | undefined; method: string; refused: boolean }[] = [
    { name: 'no header', header: undefined, method: 'tools/list', refused: false },
    ...SUPPORTED_PROTOCOL_VERSIONS.map((v) => ({ name: `supported ${v}`, header: v, method: 'tools/call', refused: false })),
    { name: 'an unknown version', header: '1999-01-01', method: 'tools/list', refused: true },
    { name: 'an unknown version on a notification', header: '1999-01-01', method: 'notifications/initialized', refused: true },
    { name: 'an unknown version on initialize (negotiated in params, as the SDK)', header: '1999-01-01', method: 'initialize', refused: false },
    { name: 'two versions joined', header: '2025-06-18, 2025-03-26', method: 'ping', refused: true },
  ];
  for (const c of cases) {
    it(`${c.refused ? 'refuses' : 'lets pass'} ${c.name}`, () => {
      const problem = protocolVersionProblem(c.header, c.method);
      if (!c.refused) return expect(problem).to.equal(null);
      expect(problem).to.deep.equal({
        status: 400,
        code: -32000,
        message: `Version du protocole MCP non prise en charge : « ${c.header} » (en-tête MCP-Protocol-Version). Versions acceptées : ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}.`,
      });
    });
  }

  it('quotes a long or control-laden header short and clean', () => {
    expect(protocolVersionProblem(`${'9'.repeat(100)}`, 'ping')?.message).to.include(`« ${'9'.repeat(80)}… »`);
    expect(protocolVersionProblem('a\u0007b', 'ping')?.message).to.include('« a\uFFFDb »');
  });
});
