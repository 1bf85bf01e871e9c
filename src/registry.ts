// The one registry: every operation of the contract, by name. REST and MCP both end here.
// Typed against the generated handler map: an operation without a handler fails the build.
import { accountActions } from './actions/account.js';
import { alertActions } from './actions/alerts.js';
import { awardActions } from './actions/awards.js';
import { companyActions } from './actions/companies.js';
import { noticeActions } from './actions/notices.js';
import { helpActions } from './actions/help.js';
import { referenceActions } from './actions/reference.js';
import type { Caller } from './caller.js';
import type { Services } from './services.js';
import type { HandlerMap } from '../generated/handler-map.js';

export type Registry = HandlerMap<Caller>;

export function createRegistry(services: Services): Registry {
  return {
    ...accountActions(services),
    ...alertActions(services),
    ...awardActions(services),
    ...companyActions(services),
    ...noticeActions(services),
    ...referenceActions(services),
    ...helpActions(services),
  };
}
