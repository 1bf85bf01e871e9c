// Reference lists are complete and consistent: every accepted department, region, NAF F code and valid CPV 45 code.
import { expect } from 'chai';
import {
  ALERT_SOURCES,
  CPV_DIVISION_45,
  DEPARTEMENTS,
  NAF_SECTION_F,
  REGIONS,
  cpvCheckDigit,
  isValidCpv,
  isValidDepartementCode,
} from '../../../src/domains/reference/lists.js';

const pad2 = (n: number): string => String(n).padStart(2, '0');
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** The accepted codes, computed from the rule: 01–19, 2A, 2B, 21–95, 971–978. */
const EXPECTED_DEPARTEMENTS: string[] = [
  ...range(1, 19).map(pad2),
  '2A',
  '2B',
  ...range(21, 95).map(pad2),
  ...range(971, 978).map(String),
];
const COLLECTIVITES = ['975', '977', '978'];

describe('reference lists', () => {
  describe('departments', () => {
    it('holds exactly the 104 accepted codes (96 metropolitan + 5 overseas departments + 3 collectivities)', () => {
      expect(EXPECTED_DEPARTEMENTS).to.have.length(104);
      expect(DEPARTEMENTS.map((d) => d.code)).to.have.members(EXPECTED_DEPARTEMENTS);
      expect(DEPARTEMENTS).to.have.length(104);
      expect(DEPARTEMENTS.filter((d) => !d.outre_mer)).to.have.length(96);
      expect(DEPARTEMENTS.filter((d) => d.outre_mer)).to.have.length(8);
    });

    it('has unique codes and non-empty names', () => {
      const codes = DEPARTEMENTS.map((d) => d.code);
      expect(new Set(codes).size).to.equal(codes.length);
      for (const d of DEPARTEMENTS) expect(d.nom.trim(), d.code).to.not.equal('');
    });

    it('marks outre-mer exactly the 97x codes and puts 975, 977, 978 in region COM', () => {
      for (const d of DEPARTEMENTS) {
        expect(d.outre_mer, d.code).to.equal(d.code.length === 3);
        expect(d.region === 'COM', d.code).to.equal(COLLECTIVITES.includes(d.code));
      }
    });

    it('spells a few official names right', () => {
      const nom = (code: string): string | undefined => DEPARTEMENTS.find((d) => d.code === code)?.nom;
      expect(nom('01')).to.equal('Ain');
      expect(nom('2A')).to.equal('Corse-du-Sud');
      expect(nom('2B')).to.equal('Haute-Corse');
      expect(nom('22')).to.equal("Côtes-d'Armor");
      expect(nom('90')).to.equal('Territoire de Belfort');
      expect(nom('95')).to.equal("Val-d'Oise");
      expect(nom('974')).to.equal('La Réunion');
      expect(nom('976')).to.equal('Mayotte');
    });

    it('isValidDepartementCode accepts every listed code and refuses anything else', () => {
      for (const code of EXPECTED_DEPARTEMENTS) expect(isValidDepartementCode(code), code).to.be.true;
      for (const code of ['20', '00', '96', '979', '2C', '1', '', '2a', ' 01', '970']) {
        expect(isValidDepartementCode(code), code).to.be.false;
      }
    });
  });

  describe('regions', () => {
    it('has the 18 regions with unique codes', () => {
      expect(REGIONS).to.have.length(18);
      const codes = REGIONS.map((r) => r.code);
      expect(new Set(codes).size).to.equal(18);
      expect(codes).to.have.members([
        '01', '02', '03', '04', '06', '11', '24', '27', '28', '32', '44', '52', '53', '75', '76', '84', '93', '94',
      ]);
    });

    it('lists only existing departments, and each department (but 975, 977, 978) is in exactly one region that agrees with its region field', () => {
      const byCode = new Map(DEPARTEMENTS.map((d) => [d.code, d]));
      const seen = new Map<string, string>();
      for (const r of REGIONS) {
        for (const code of r.departements) {
          expect(byCode.has(code), `${r.code} lists unknown ${code}`).to.be.true;
          expect(seen.has(code), `${code} in two regions`).to.be.false;
          seen.set(code, r.code);
          expect(byCode.get(code)?.region, code).to.equal(r.code);
        }
      }
      for (const d of DEPARTEMENTS) {
        if (COLLECTIVITES.includes(d.code)) expect(seen.has(d.code), d.code).to.be.false;
        else expect(seen.get(d.code), d.code).to.equal(d.region);
      }
      expect(seen.size).to.equal(101);
    });
  });

  describe('NAF section F', () => {
    it('has the 38 sub-classes of divisions 41, 42, 43, unique and well formed', () => {
      expect(NAF_SECTION_F).to.have.length(38);
      const codes = NAF_SECTION_F.map((n) => n.code);
      expect(new Set(codes).size).to.equal(38);
      for (const n of NAF_SECTION_F) {
        expect(n.code).to.match(/^4[123]\.\d{2}[A-Z]$/);
        expect(n.division).to.equal(n.code.slice(0, 2));
        expect(n.groupe).to.equal(n.code.slice(0, 4));
        expect(n.libelle.trim()).to.not.equal('');
      }
      expect(NAF_SECTION_F.filter((n) => n.division === '41')).to.have.length(6);
      expect(NAF_SECTION_F.filter((n) => n.division === '42')).to.have.length(8);
      expect(NAF_SECTION_F.filter((n) => n.division === '43')).to.have.length(24);
      expect(codes).to.include.members(['41.10D', '42.13B', '43.21A', '43.32C', '43.99E']);
    });
  });

  describe('CPV division 45', () => {
    it('computes known check digits and refuses a wrong one', () => {
      expect(cpvCheckDigit('45000000')).to.equal(7);
      expect(cpvCheckDigit('45100000')).to.equal(8);
      expect(cpvCheckDigit('45210000')).to.equal(2);
      expect(cpvCheckDigit('45331000')).to.equal(6);
      expect(cpvCheckDigit('45233140')).to.equal(2);
      expect(cpvCheckDigit('45262522')).to.equal(6);
      for (const code of ['45000000-7', '45100000-8', '45210000-2', '45331000-6', '45233140-2', '45262522-6']) {
        expect(isValidCpv(code), code).to.be.true;
      }
      for (const code of ['45000000-8', '45000000', '4500000-7', '45000000-77', 'x5000000-7', '']) {
        expect(isValidCpv(code), code).to.be.false;
      }
      expect(() => cpvCheckDigit('4500000')).to.throw(RangeError);
    });

    it('has only valid, unique codes of division 45 whose parents exist one level up', () => {
      const byCode = new Map(CPV_DIVISION_45.map((c) => [c.code, c]));
      expect(byCode.size).to.equal(CPV_DIVISION_45.length);
      expect(CPV_DIVISION_45.length).to.be.within(60, 100);
      for (const c of CPV_DIVISION_45) {
        expect(isValidCpv(c.code), c.code).to.be.true;
        expect(c.code.startsWith('45'), c.code).to.be.true;
        expect(c.libelle.trim(), c.code).to.not.equal('');
        expect(c.niveau, c.code).to.be.oneOf([1, 2, 3, 4]);
        // The level is the number of significant digits after the division's two.
        expect(c.code.slice(c.niveau + 1, 8), c.code).to.match(/^0*$/);
        if (c.niveau > 1) expect(c.code.charAt(c.niveau), c.code).to.not.equal('0');
        if (c.niveau === 1) {
          expect(c.parent, c.code).to.equal(null);
        } else {
          const parent = c.parent === null ? undefined : byCode.get(c.parent);
          expect(parent, `parent of ${c.code}`).to.not.equal(undefined);
          expect(parent?.niveau, `parent of ${c.code}`).to.equal(c.niveau - 1);
          expect(c.code.slice(0, c.niveau), c.code).to.equal(parent?.code.slice(0, c.niveau));
        }
      }
    });

    it('holds the division, its 5 groups, its 20 classes and the main building-trade categories', () => {
      const codes = CPV_DIVISION_45.map((c) => c.code);
      expect(CPV_DIVISION_45.filter((c) => c.niveau === 1).map((c) => c.code)).to.deep.equal(['45000000-7']);
      expect(CPV_DIVISION_45.filter((c) => c.niveau === 2).map((c) => c.code)).to.have.members([
        '45100000-8', '45200000-9', '45300000-0', '45400000-1', '45500000-2',
      ]);
      expect(CPV_DIVISION_45.filter((c) => c.niveau === 3).map((c) => c.code)).to.have.members([
        '45110000-1', '45120000-4',
        '45210000-2', '45220000-5', '45230000-8', '45240000-1', '45250000-4', '45260000-7',
        '45310000-3', '45320000-6', '45330000-9', '45340000-2', '45350000-5',
        '45410000-4', '45420000-7', '45430000-0', '45440000-3', '45450000-6',
        '45510000-5', '45520000-8',
      ]);
      expect(codes).to.include.members([
        '45211000-9', '45213000-3', '45232000-2', '45233000-9', '45261000-4', '45262000-1', '45311000-0',
        '45331000-6', '45332000-3', '45421000-4', '45442000-7', '45443000-4', '45453000-7', '45454000-4',
      ]);
      expect(CPV_DIVISION_45.find((c) => c.code === '45211000-9')?.libelle).to.equal(
        "Travaux de construction d'immeubles collectifs et de maisons individuelles",
      );
    });
  });

  describe('alert sources', () => {
    it('has the ten sources in order, with departments required and term applied as specified', () => {
      expect(ALERT_SOURCES.map((s) => s.code)).to.deep.equal([
        'marche', 'dce', 'attribution', 'permis', 'reseaux_sociaux', 'mairie', 'bodacc', 'entreprise', 'contact', 'dvf',
      ]);
      const bySource = new Map(ALERT_SOURCES.map((s) => [s.code, s]));
      expect(ALERT_SOURCES.filter((s) => s.departements_requis).map((s) => s.code)).to.deep.equal([
        'attribution',
        'dvf',
      ]);
      expect(ALERT_SOURCES.filter((s) => !s.terme_applique).map((s) => s.code)).to.deep.equal(['dvf']);
      expect(bySource.get('marche')?.surveille).to.contain('J-7');
      expect(bySource.get('permis')?.surveille).to.contain('45');
      for (const s of ALERT_SOURCES) {
        expect(s.libelle.trim(), s.code).to.not.equal('');
        expect(s.surveille.trim(), s.code).to.not.equal('');
      }
    });
  });
});
