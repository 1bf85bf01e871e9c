// When no OAuth request is in progress, oidc-provider's AsyncLocalStorage is disabled, so the promise hooks it turns on (Node 20) do not slow every API call; OAuth requests work as before, each turning it on for its own time.
import { expect } from 'chai';
import { providerStorage } from '../../../src/auth/provider.js';
import { startTestService, type TestService } from '../../helpers/service.js';

describe('oidc-provider request storage', function () {
  this.timeout(30000);
  let svc: TestService;
  let storage: { enabled?: boolean };

  before(async () => {
    svc = await startTestService();
    const found = await providerStorage();
    if (!found) throw new Error('stockage de requêtes d’oidc-provider introuvable');
    storage = found as { enabled?: boolean };
  });
  after(async () => svc.close());

  it('is off once the OAuth flow that obtained a token is over, and API calls work', async () => {
    // Node 20 keeps the state in a plain field; later versions may not have it.
    expect(storage.enabled).to.equal(false);
    expect((await svc.rest('referentiels.sources', {})).status).to.equal(200);
  });

  it('another OAuth flow (registration, authorize, token) still succeeds, and leaves it off again', async () => {
    const other = await svc.createAccount();
    const token = await svc.tokenFor(other, 'mcp:read');
    expect(storage.enabled).to.equal(false);
    expect((await svc.rest('me', undefined, { token })).status).to.equal(200);
    const metadata = await fetch(`${svc.url}/.well-known/oauth-authorization-server`);
    expect(metadata.status).to.equal(200);
    expect(storage.enabled).to.equal(false);
  });
});
