// The publishers' connectors, each declared with the domain it feeds (next to that domain's
// importer); the synchronisation engine (src/sync/) runs them. `mairie`, `reseaux_sociaux`,
// `contact` and `dce` have no national publisher: they keep their importers only.
import type { Connector } from '../sync/connector.js';
import { boampConnector } from './notices/sync-boamp.js';
import { bodaccConnector } from './announcements/sync-bodacc.js';
import { decpConnector } from './awards/sync-decp.js';
import { ratiosConnector } from './companies/sync-ratios.js';
import { rgeConnector } from './companies/sync-rge.js';
import { rneConnector } from './companies/sync-rne.js';
import { sireneConnector } from './companies/sync-sirene.js';
import { sireneStockConnector } from './companies/sync-sirene-stock.js';
import { sitadelConnector } from './permits/sync-sitadel.js';
import { dvfConnector } from './sales/sync-dvf.js';

export const CONNECTORS: readonly Connector[] = [
  boampConnector,
  bodaccConnector,
  decpConnector,
  sireneConnector,
  sireneStockConnector,
  rgeConnector,
  rneConnector,
  ratiosConnector,
  dvfConnector,
  sitadelConnector,
];

/** The alert sources fed by no publisher: their records come by import only. */
export const MANUAL_SOURCES = ['mairie', 'reseaux_sociaux', 'contact', 'dce'] as const;

export function connectorNamed(name: string): Connector | undefined {
  return CONNECTORS.find((c) => c.name === name);
}
