// The one registry: every operation of the contract, by name. REST and MCP both end here.
// Typed against the generated handler map: an operation without a handler fails the build.
import { accountActions } from './account/actions.js';
import { analysisActions } from './analyses/actions.js';
import { alertActions } from './alerts/actions.js';
import { announcementActions } from './announcements/actions.js';
import { awardActions } from './awards/actions.js';
import { companyActions } from './companies/actions.js';
import { dceActions } from './dce/actions.js';
import { followUpActions } from './follow-ups/actions.js';
import { emailActions } from './emails/actions.js';
import { draftActions } from './drafts/actions.js';
import { responseFileActions } from './response-files/actions.js';
import { eventActions } from './events/actions.js';
import { contactActions } from './contacts/actions.js';
import { minutesActions } from './minutes/actions.js';
import { postActions } from './posts/actions.js';
import { noticeActions } from './notices/actions.js';
import { permitActions } from './permits/actions.js';
import { planActions } from './plan/actions.js';
import { helpActions } from './help/actions.js';
import { referenceActions } from './reference/actions.js';
import { saleActions } from './sales/actions.js';
import type { Caller } from '../access/caller.js';
import type { Services } from './context.js';
import type { HandlerMap } from '../../generated/handler-map.js';

export type Registry = HandlerMap<Caller>;

export function createRegistry(services: Services): Registry {
  return {
    ...accountActions(services),
    ...alertActions(services),
    ...analysisActions(services),
    ...announcementActions(services),
    ...awardActions(services),
    ...companyActions(services),
    ...dceActions(services),
    ...eventActions(services),
    ...noticeActions(services),
    ...permitActions(services),
    ...referenceActions(services),
    ...saleActions(services),
    ...helpActions(services),
    ...minutesActions(services),
    ...postActions(services),
    ...contactActions(services),
    ...followUpActions(services),
    ...draftActions(services),
    ...responseFileActions(services),
    ...planActions(services),
    ...emailActions(services),
  };
}
