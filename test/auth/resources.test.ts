// Each MCP address is a protected resource: the canonical one works everywhere, a restricted address's token there only; each address's challenge points to its own metadata and names its scopes and the token error.
import { expect } from 'chai';
import { bearerChallenge, DpopRefusal, TokenRefusal } from '../../src/auth/bearer.js';
import { allResources, audienceAllows, metadataRoutes, metadataUrlOf, resourceOf, type Address } from '../../src/auth/resources.js';
import { InsufficientScopeError, UnauthenticatedError } from '../../src/errors.js';

const BASE = 'https://api.exemple.fr';

describe('protected resources per address', () => {
  it('lists the canonical resource first, then each restricted address', () => {
    expect(allResources(BASE)).to.deep.equal([`${BASE}/api/mcp`, `${BASE}/api/mcp/connectors`, `${BASE}/api/mcp/assistant`]);
  });

  const cases: { audience: string[]; allowed: Address[] }[] = [
    { audience: [`${BASE}/api/mcp`], allowed: ['rest', 'full', 'connectors', 'assistant'] },
    { audience: [`${BASE}/api/mcp/connectors`], allowed: ['connectors'] },
    { audience: [`${BASE}/api/mcp/assistant`], allowed: ['assistant'] },
    { audience: ['https://ailleurs.exemple.fr/api/mcp'], allowed: [] },
    { audience: [], allowed: [] },
  ];
  for (const c of cases) {
    it(`a token for ${c.audience.join(', ') || 'no resource'} is used at ${c.allowed.join(', ') || 'no address'}`, () => {
      for (const address of ['rest', 'full', 'connectors', 'assistant'] as Address[]) expect(audienceAllows(c.audience, BASE, address), address).to.equal(c.allowed.includes(address));
    });
  }

  it('gives each address its resource and metadata: the root document for REST and /api/mcp (the spec), the path form for the others', () => {
    const want: [Address, string, string][] = [
      ['rest', `${BASE}/api/mcp`, `${BASE}/.well-known/oauth-protected-resource`],
      ['full', `${BASE}/api/mcp`, `${BASE}/.well-known/oauth-protected-resource`],
      ['connectors', `${BASE}/api/mcp/connectors`, `${BASE}/.well-known/oauth-protected-resource/api/mcp/connectors`],
      ['assistant', `${BASE}/api/mcp/assistant`, `${BASE}/.well-known/oauth-protected-resource/api/mcp/assistant`],
    ];
    for (const [address, resource, metadata] of want) {
      expect(resourceOf(BASE, address), address).to.equal(resource);
      expect(metadataUrlOf(BASE, address), address).to.equal(metadata);
    }
    expect(metadataRoutes()).to.deep.equal([
      { path: '/.well-known/oauth-protected-resource', address: 'full' },
      { path: '/.well-known/oauth-protected-resource/api/mcp', address: 'full' },
      { path: '/.well-known/oauth-protected-resource/api/mcp/connectors', address: 'connectors' },
      { path: '/.well-known/oauth-protected-resource/api/mcp/assistant', address: 'assistant' },
    ]);
  });

  it('challenges: no token → no error; a presented token → invalid_token or invalid_request; scopes and metadata of the address', () => {
    const connectors = `resource_metadata="${BASE}/.well-known/oauth-protected-resource/api/mcp/connectors"`;
    const root = `resource_metadata="${BASE}/.well-known/oauth-protected-resource"`;
    const dpop = (m: string, error = '') => `DPoP realm="MCP", ${error}algs="ES256 Ed25519 EdDSA", ${m}`;
    expect(bearerChallenge(new UnauthenticatedError('x'), BASE, 'connectors')).to.equal(`Bearer realm="MCP", scope="mcp:read", ${connectors}, ${dpop(connectors)}`);
    expect(bearerChallenge(new TokenRefusal('x', 'invalid_token'), BASE, 'rest')).to.equal(`Bearer realm="MCP", error="invalid_token", scope="mcp:read mcp:write", ${root}, ${dpop(root)}`);
    expect(bearerChallenge(new TokenRefusal('x', 'invalid_request'), BASE, 'assistant')).to.include('Bearer realm="MCP", error="invalid_request", scope="mcp:read mcp:write"');
    expect(bearerChallenge(new DpopRefusal('x', 'invalid_dpop_proof'), BASE, 'full')).to.equal(`Bearer realm="MCP", scope="mcp:read mcp:write", ${root}, ${dpop(root, 'error="invalid_dpop_proof", ')}`);
    expect(bearerChallenge(new InsufficientScopeError('mcp:write'), BASE, 'connectors')).to.equal(`Bearer realm="MCP", error="insufficient_scope", scope="mcp:write", ${connectors}`);
  });
});
