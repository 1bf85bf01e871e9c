// A data-fair row of the RGE list becomes exactly what the RGE importer reads (text fields, contact columns never kept), and a stored cursor that cannot be read starts a new snapshot instead of resuming a wrong one.
import { expect } from 'chai';
import { readRgeCursor, rgeRecordFromApi } from '../../../src/domains/companies/sync-rge.js';
import { readRatiosCursor } from '../../../src/domains/companies/sync-ratios.js';
import { rge } from '../../../src/domains/companies/import-rge.js';

describe('RGE connector: data-fair rows and cursors', () => {
  const apiRow = {
    siret: '82454695600023',
    nom_entreprise: 'EL ARCHITECTURE',
    telephone: '0320000000',
    email: 'contact@exemple.fr',
    site_internet: 'https://exemple.fr',
    domaine: 'Architecte',
    meta_domaine: null,
    nom_qualification: 'Architecte sur le site faire.fr (2)',
    code_qualification: 5211,
    organisme: 'cnoa',
    particulier: false,
    latitude: 50.6,
    lien_date_debut: '2019-10-16',
    lien_date_fin: '2099-01-01',
    _score: null,
  };

  it('keeps the fields the importer reads, as text; numbers as their text; null and contact columns left out', () => {
    const record = rgeRecordFromApi(apiRow);
    expect(record).to.deep.equal({
      siret: '82454695600023',
      domaine: 'Architecte',
      organisme: 'cnoa',
      code_qualification: '5211',
      nom_qualification: 'Architecte sur le site faire.fr (2)',
      lien_date_debut: '2019-10-16',
      lien_date_fin: '2099-01-01',
    });
    const mapped = rge.map(record, '2026-11-26T06:20:00.000Z');
    expect('row' in mapped && mapped.row).to.include({ siret: '82454695600023', code_qualification: '5211', meta_domaine: null, date_debut: '2019-10-16', date_fin: '2099-01-01' });
  });

  it('a value that is not a row gives an empty record, which the importer skips with its reason', () => {
    for (const bad of [null, 'texte', 12, [apiRow]]) {
      const mapped = rge.map(rgeRecordFromApi(bad), '2026-11-26T06:20:00.000Z');
      expect('skip' in mapped && mapped.skip).to.contain('SIRET');
    }
  });

  it('a cursor without a readable snapshot start or next answer starts a new snapshot, keeping the last one done', () => {
    expect(readRgeCursor(null)).to.deep.equal({ snapshot: null, next: null, received: 0, total: null, done: null });
    expect(readRgeCursor({ snapshot: 'hier', next: 'https://data.ademe.fr/x', received: 10, total: 20, done: '2026-11-25T05:20:00.000Z' })).to.deep.equal({
      snapshot: null,
      next: null,
      received: 0,
      total: null,
      done: '2026-11-25T05:20:00.000Z',
    });
    const resumed = { snapshot: '2026-11-26T05:20:00.000Z', next: 'https://data.ademe.fr/x/lines?after=9', received: 10, total: 20, done: null };
    expect(readRgeCursor(resumed)).to.deep.equal(resumed);
  });

  it('a ratios cursor counts records only for a known processing; an unreadable count starts the export over', () => {
    expect(readRatiosCursor({ processed: '2026-11-20T09:58:12+00:00', recordsDone: 600 })).to.deep.equal({ processed: '2026-11-20T09:58:12+00:00', recordsDone: 600 });
    expect(readRatiosCursor({ processed: null, recordsDone: 600 })).to.deep.equal({ processed: null, recordsDone: null });
    expect(readRatiosCursor({ processed: '2026-11-20T09:58:12+00:00', recordsDone: null })).to.deep.equal({ processed: '2026-11-20T09:58:12+00:00', recordsDone: null });
    // A count that cannot be read reads the export again from its start, never takes it as read whole.
    expect(readRatiosCursor({ processed: '2026-11-20T09:58:12+00:00', recordsDone: -1 })).to.deep.equal({ processed: '2026-11-20T09:58:12+00:00', recordsDone: 0 });
  });
});
