// A DECP contract read from the Opendatasoft portal's flattened rows (both schemas) is exactly the contract imported from its published JSON: every holder and amendment once, fillers never taken for values, a SIRET published as a number given back its zeros.
import { expect } from 'chai';
import { decp } from '../../../src/domains/awards/import-decp.js';
import { decpContractsOfRows, decpRowKey } from '../../../src/domains/awards/decp-ods.js';
import { rows2019, rows2022, sampleContracts } from '../../helpers/decp-ods-rows.js';

const NOW = '2026-11-26T13:00:00.000Z';
const mapped = (record: unknown) => decp.map(record as never, NOW);

describe('DECP rows of the Opendatasoft portal', () => {
  it('2022 schema: the real contracts of a buyer (Mégalis) and the edge cases of a pipeline fixture map as their published JSON does', () => {
    const contracts = [...sampleContracts('decp-2024-megalis-59920013600241-2024-07-09-01.json'), ...sampleContracts('decp-2024-shape-decp-processing-fixture.json')];
    const rows = contracts.flatMap(rows2022);
    expect(rows.length).to.be.greaterThan(contracts.length);
    const records = decpContractsOfRows(rows, '2022');
    expect(records).to.have.length(contracts.length);
    contracts.forEach((contract, i) => expect(mapped(records[i]), String(contract.id)).to.deep.equal(mapped(contract)));
  });

  it('2019 schema: the schema example and a pipeline fixture (flattened buyer id, nested amendment holders) map as their published JSON does', () => {
    const contracts = [...sampleContracts('decp-2019-official-example-paquet.json'), ...sampleContracts('decp-2019-shape-decp-processing-fixture.json')];
    const records = decpContractsOfRows(contracts.flatMap(rows2019), '2019');
    expect(records).to.have.length(contracts.length);
    contracts.forEach((contract, i) => expect(mapped(records[i]), String(contract.id)).to.deep.equal(mapped(contract)));
    // The buyer's and holders' names of this schema are kept.
    const rennes = records[0] as { acheteur: { nom: string }; titulaires: { denominationSociale: string }[] };
    expect(rennes.acheteur.nom).to.equal('Ville de Rennes');
    expect(rennes.titulaires.map((t) => t.denominationSociale)).to.deep.equal(['Garami SARL', 'Hellman Gmbh']);
  });

  it('gathers one contract\'s rows (holders × amendments) into one record, each holder and amendment once, in the published 2022 shape', () => {
    const contract = {
      id: '2025-044',
      acheteur: { id: '21290232000014' },
      nature: 'Marché',
      objet: 'Réfection de toiture',
      codeCPV: '45261000',
      procedure: 'Procédure adaptée',
      lieuExecution: { code: '29', typeCode: 'Code département' },
      dureeMois: 6,
      dateNotification: '2025-03-01',
      datePublicationDonnees: '2025-03-04',
      montant: 84500,
      titulaires: ['18420001200013', '18420002000016', '18420003800018', '18420004600011'].map((id) => ({ titulaire: { typeIdentifiant: 'SIRET', id } })),
      modifications: [
        { modification: { id: 1, montant: 91000, dateNotificationModification: '2025-06-01', datePublicationDonneesModification: '2025-06-03', titulaires: [{ titulaire: { typeIdentifiant: 'SIRET', id: '18420001200013' } }, { titulaire: { typeIdentifiant: 'SIRET', id: '18420005300012' } }] } },
        { modification: { id: 2, dureeMois: 9, dateNotificationModification: '2025-09-01', datePublicationDonneesModification: '2025-09-02' } },
      ],
    };
    const rows = rows2022(contract);
    expect(rows).to.have.length(2 * 3);
    const [record] = decpContractsOfRows(rows, '2022') as Record<string, unknown>[];
    expect(record?.titulaires).to.deep.equal(contract.titulaires);
    expect(record?.modifications).to.deep.equal(contract.modifications);
    expect(mapped(record)).to.deep.equal(mapped(contract));
  });

  it('never takes the CDL filler for a holder, an amendment or a framework agreement', () => {
    const [row] = rows2022({ id: 'A1', acheteur: { id: '21290232000014' }, dateNotification: '2025-01-02', montant: 10, titulaires: [{ titulaire: { typeIdentifiant: 'SIRET', id: '18420001200013' } }] });
    expect(row?.titulaire_id_2).to.equal('CDL');
    const [record] = decpContractsOfRows([row], '2022') as Record<string, unknown>[];
    expect(record?.titulaires).to.deep.equal([{ titulaire: { typeIdentifiant: 'SIRET', id: '18420001200013' } }]);
    expect(record?.modifications).to.deep.equal([]);
    expect(record).to.not.have.property('idAccordCadre');
  });

  it('gives a SIRET published as a number its leading zero back (2019 schema), and keeps an amendment whose holders are not JSON without them', () => {
    const [row] = rows2019({ id: 'B2', acheteur: { id: '21290232000014', nom: 'Commune de Quimper' }, dateNotification: '2021-05-02', montant: 10, titulaires: [{ typeIdentifiant: 'SIRET', id: '05780122700059', denominationSociale: 'Menuiserie Le Gall' }] });
    expect(row?.titulaire_id_1).to.equal(5780122700059);
    const amended = { ...row, booleanmodification: 1, objetmodification: 'Avenant 1', montantmodification: 12, titulairesmodification: "[{'id': 'x'}]" };
    const [record] = decpContractsOfRows([amended], '2019') as Record<string, unknown>[];
    expect(record?.titulaires).to.deep.equal([{ typeIdentifiant: 'SIRET', id: '05780122700059', denominationSociale: 'Menuiserie Le Gall' }]);
    expect(record?.modifications).to.deep.equal([{ objetModification: 'Avenant 1', montant: 12 }]);
    const result = mapped(record);
    expect('row' in result && result.row.winners).to.deep.equal([{ siret: '05780122700059', denomination: 'Menuiserie Le Gall' }]);
  });

  it('keeps apart two buyers\' contracts sharing an id, and a row without id alone', () => {
    const a = rows2022({ id: 'MAPA-1', acheteur: { id: '21290232000014' }, dateNotification: '2025-01-02', montant: 1, titulaires: [] });
    const b = rows2022({ id: 'MAPA-1', acheteur: { id: '21350238800019' }, dateNotification: '2025-01-03', montant: 2, titulaires: [] });
    const records = decpContractsOfRows([...a, ...b, { objet: 'sans id' }, { objet: 'sans id' }, 'pas un objet'], '2022');
    expect(records).to.have.length(5);
    expect(decpRowKey(a[0])).to.equal('21290232000014:MAPA-1');
    expect(mapped(records[2])).to.deep.equal({ skip: 'identifiant du marché absent' });
    expect(mapped(records[4])).to.deep.equal({ skip: 'enregistrement qui n’est pas un objet' });
  });
});
