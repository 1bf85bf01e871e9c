// Demo BOAMP notices keep the open-data export shape: idweb, lists, dates, url_avis, and `donnees` a JSON string with the CPV and the buyer contact.
import { expect } from 'chai';
import { CPV_DIVISION_45, isValidDepartementCode } from '../../../src/domains/reference/lists.js';
import { isRealDay, postalCodeMatches, readDemo, TODAY } from './fixture.js';

interface Notice {
  idweb: string;
  id: string;
  objet: string;
  nomacheteur: string;
  dateparution: string;
  datelimitereponse: string | null;
  code_departement: string[];
  type_marche: string[];
  nature: string;
  nature_libelle: string;
  procedure_libelle: string;
  famille: string;
  etat: string;
  annonce_lie: string | null;
  url_avis: string;
  donnees: string;
}

const CPV45 = new Set(CPV_DIVISION_45.map((c) => c.code.slice(0, 8)));
const LIBELLES: Record<string, string> = { APPEL_OFFRE: 'Avis de marché', ATTRIBUTION: 'Résultat de marché', RECTIFICATIF: 'Rectificatif' };

describe('demo data: BOAMP notices', () => {
  let notices: Notice[];
  let jsonlText: string;

  before(async () => {
    const doc = JSON.parse(await readDemo('boamp/boamp.json')) as Record<string, unknown>;
    expect(Object.keys(doc)).to.deep.equal(['results']);
    notices = doc.results as Notice[];
    jsonlText = await readDemo('boamp/boamp.jsonl');
  });

  it('writes the same 1,500 records as {"results": [...]} and as one record a line', () => {
    expect(notices).to.have.length(1500);
    const lines = jsonlText.split('\n').filter((l) => l !== '');
    expect(lines).to.have.length(1500);
    expect(lines.map((l) => JSON.parse(l) as Notice)).to.deep.equal(notices);
  });

  it('numbers notices like BOAMP: idweb "YY-N", unique, year of publication, url_avis built on it', () => {
    const seen = new Set<string>();
    for (const n of notices) {
      expect(n.idweb).to.match(/^\d{2}-\d+$/);
      expect(n.idweb.slice(0, 2)).to.equal(n.dateparution.slice(2, 4));
      expect(n.id).to.equal(n.idweb);
      expect(seen.has(n.idweb)).to.equal(false);
      seen.add(n.idweb);
      expect(n.url_avis).to.equal(`https://www.boamp.fr/pages/avis/?q=idweb:"${n.idweb}"`);
    }
  });

  it('fills the lists and codes: departments, market types (mostly works), natures, procedures', () => {
    const natures = new Map<string, number>();
    let travaux = 0;
    for (const n of notices) {
      expect(n.code_departement).to.be.an('array').that.is.not.empty;
      for (const d of n.code_departement) expect(isValidDepartementCode(d), d).to.equal(true);
      expect(n.type_marche).to.be.an('array').with.length(1);
      expect(['TRAVAUX', 'FOURNITURES', 'SERVICES']).to.include(n.type_marche[0]);
      if (n.type_marche[0] === 'TRAVAUX') travaux++;
      expect(LIBELLES[n.nature]).to.equal(n.nature_libelle);
      natures.set(n.nature, (natures.get(n.nature) ?? 0) + 1);
      expect(['Procédure adaptée', "Appel d'offres ouvert"]).to.include(n.procedure_libelle);
      expect(['MAPA', 'FNS', 'JOUE']).to.include(n.famille);
      expect(['INITIAL', 'RECTIFICATIF']).to.include(n.etat);
      expect(n.nomacheteur).to.match(/^(Ville|Commune) (de |d'|du |des )|^Département (du |de la |de l'|des |de |d')|^Collectivité /);
      expect(n.objet.length).to.be.greaterThan(10);
    }
    expect(travaux / notices.length).to.be.greaterThan(0.75);
    expect(natures.get('APPEL_OFFRE')).to.be.greaterThan(900);
    expect(natures.get('ATTRIBUTION')).to.be.greaterThan(50);
    expect(natures.get('RECTIFICATIF')).to.be.greaterThan(20);
  });

  it('dates notices around today: publications past, deadlines some passed and many to come', () => {
    let passed = 0;
    let open = 0;
    for (const n of notices) {
      expect(isRealDay(n.dateparution)).to.equal(true);
      expect(n.dateparution <= TODAY).to.equal(true);
      if (n.nature === 'ATTRIBUTION') {
        expect(n.datelimitereponse).to.equal(null);
        continue;
      }
      expect(n.datelimitereponse).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
      expect(Number.isNaN(Date.parse(n.datelimitereponse!))).to.equal(false);
      expect(n.datelimitereponse!.slice(0, 10) > n.dateparution).to.equal(true);
      if (n.datelimitereponse!.slice(0, 10) < TODAY) passed++;
      else open++;
    }
    expect(passed).to.be.greaterThan(100);
    expect(open).to.be.greaterThan(300);
  });

  it('links rectifications and award notices to an earlier call for tenders', () => {
    const byId = new Map(notices.map((n) => [n.idweb, n]));
    for (const n of notices) {
      if (n.nature === 'APPEL_OFFRE') {
        expect(n.annonce_lie).to.equal(null);
        continue;
      }
      const initial = byId.get(n.annonce_lie!);
      expect(initial, n.idweb).to.not.equal(undefined);
      expect(initial!.nature).to.equal('APPEL_OFFRE');
      expect(initial!.dateparution <= n.dateparution).to.equal(true);
      expect(initial!.nomacheteur).to.equal(n.nomacheteur);
    }
  });

  it('holds the full notice in `donnees`, a JSON string with the CPV and the buyer contact', () => {
    for (const n of notices) {
      expect(n.donnees).to.be.a('string');
      const d = JSON.parse(n.donnees) as {
        IDENTITE: Record<string, string>;
        OBJET: { CPV: { PRINCIPAL: string }; LOTS?: { LOT: { CPV: { PRINCIPAL: string } }[] } };
      };
      const cpv = d.OBJET.CPV.PRINCIPAL;
      expect(cpv).to.match(/^\d{8}$/);
      if (n.type_marche[0] === 'TRAVAUX') expect(CPV45.has(cpv), cpv).to.equal(true);
      for (const lot of d.OBJET.LOTS?.LOT ?? []) expect(CPV45.has(lot.CPV.PRINCIPAL)).to.equal(true);
      expect(d.IDENTITE.DENOMINATION).to.equal(n.nomacheteur);
      expect(d.IDENTITE.TEL).to.match(/^0\d( \d\d){4}$/);
      expect(d.IDENTITE.MEL).to.match(/^[a-z.-]+@[a-z0-9.-]+\.[a-z]+$/);
      expect(d.IDENTITE.URL).to.match(/^https:\/\/www\./);
      expect(postalCodeMatches(d.IDENTITE.CP!, n.code_departement[0]!), `${d.IDENTITE.CP} ${n.code_departement[0]}`).to.equal(true);
    }
    expect(notices.some((n) => n.objet.includes('— lot '))).to.equal(true);
    expect(notices.some((n) => n.nomacheteur === 'Ville de Quimper' || n.nomacheteur === 'Département du Finistère')).to.equal(true);
  });
});
