// A deliberation line becomes a row with its department from the commune code, its texts masked and its source address dropped (counted); a bad line says which field.
import { contactNotes } from '../../../src/import/contact-details.js';
import { expect } from 'chai';
import { deliberations } from '../../../src/domains/minutes/import-deliberations.js';

const NOW = '2026-03-05T10:00:00.000Z';
const line = { id: '2A004-2026-01', commune: '2A004', commune_nom: 'Ajaccio', date_seance: '2026-02-10', titre: ' Voirie ', texte: 'Écrire à voirie@ajaccio.fr.', url: 'https://www.ajaccio.fr/d.pdf' };

describe('deliberations importer', () => {
  it('maps a line: department of the commune (Corsica), trimmed title, masked text, address dropped, both counted', () => {
    const mapped = deliberations.map(line, NOW);
    expect(mapped).to.deep.equal({
      row: { id: '2A004-2026-01', commune: '2A004', commune_nom: 'Ajaccio', departement: '2A', date_seance: '2026-02-10', numero: null, titre: 'Voirie', texte: 'Écrire à [coordonnée masquée].', source: null, ingested_at: NOW, updated_at: NOW },
      notes: contactNotes(2),
    });
  });

  it('skips a line with a bad commune code, a missing title or an impossible date, naming the field', () => {
    expect(deliberations.map({ ...line, commune: '20004' }, NOW)).to.deep.equal({ skip: 'champ « commune » : format non reconnu' });
    expect(deliberations.map({ ...line, titre: undefined }, NOW)).to.deep.equal({ skip: 'champ « titre » absent' });
    expect(deliberations.map({ ...line, date_seance: '2026-02-30' }, NOW)).to.deep.equal({ skip: 'champ « date_seance » : date AAAA-MM-JJ attendue' });
    expect(deliberations.map('texte', NOW)).to.deep.equal({ skip: 'la ligne doit être un objet JSON' });
  });
});
