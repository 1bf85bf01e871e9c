// A contact line keeps name, role and organisation only: every contact key dropped (counted when filled), any other key holding a contact detail dropped, contact details inside texts masked; the SIREN taken from the SIRET.
import { contactNotes } from '../../../src/import/contact-details.js';
import { expect } from 'chai';
import { CONTACT_KEYS, contacts } from '../../../src/domains/contacts/import-contacts.js';
import { importFormat } from '../../../src/contract/formats.js';

const NOW = '2026-03-05T10:00:00.000Z';
const line = { id: 'c-1', nom: 'M. Yann Le Goff', role: 'Gérant', organisation: 'Le Goff Couverture', organisation_siret: '73282932000018', departement: '29' };

describe('contacts importer', () => {
  it('documents every contact key it drops in the format of the contract', () => {
    const properties = (importFormat('ContactLine') as { properties: Record<string, { description?: string }> }).properties;
    for (const key of CONTACT_KEYS) expect(properties[key]?.description, key).to.match(/supprimée à l'import/);
  });

  it('drops each filled contact key and counts it; an empty one is dropped uncounted', () => {
    const filled = Object.fromEntries([...CONTACT_KEYS].map((k) => [k, k.includes('mail') || k === 'courriel' ? 'a@b.fr' : '02 98 98 89 89']));
    const mapped = contacts.map({ ...line, ...filled, fax: '' }, NOW) as unknown as { row: Record<string, unknown>; notes: string[] };
    expect(mapped.notes).to.deep.equal(contactNotes(CONTACT_KEYS.size - 1));
    expect(Object.keys(mapped.row).sort()).to.deep.equal(
      ['id', 'nom', 'role', 'organisation', 'organisation_siren', 'organisation_siret', 'commune', 'commune_nom', 'departement', 'organisation_mots', 'role_mots', 'ingested_at', 'updated_at'].sort(),
    );
    expect(mapped.row).to.include({ organisation_siren: '732829320', departement: '29', organisation_mots: ' le goff couverture ', role_mots: ' gerant ' });
  });

  it('drops an unknown key holding a contact detail, but refuses an unknown key otherwise', () => {
    expect(contacts.map({ ...line, whatsapp: '+33 6 12 34 56 78' }, NOW)).to.have.deep.property('notes', contactNotes(1));
    expect(contacts.map({ ...line, service: 'voirie' }, NOW)).to.deep.equal({ skip: 'champ inconnu « service »' });
  });
});
