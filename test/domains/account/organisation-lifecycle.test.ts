// The last administrator cannot leave while other members remain; the last member can, and the organisation with its whole workspace is deleted only once the 30-day grace is over and nobody rejoined.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { createAccount } from '../../../src/auth/store/accounts.js';
import { changeRole, joinOrganisation, leaveOrganisation, ORGANISATION_GRACE_DAYS, removeMember } from '../../../src/auth/store/team.js';
import { deleteDueOrganisations, eraseAccount } from '../../../src/domains/account/erasure.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';

const DAY = 86_400_000;

describe('organisation lifecycle: leaving, last administrator, grace period', () => {
  let m: MigratedDatabase;
  before(async () => {
    m = await openMigratedDatabase();
  });
  after(async () => m?.close());

  async function organisation(name: string) {
    const admin = await createAccount(m.db, { email: `admin-${randomUUID()}@exemple.fr`, passwordHash: 'x', organisation: name, role: 'admin' }, new Date());
    const other = await createAccount(m.db, { email: `membre-${randomUUID()}@exemple.fr`, passwordHash: 'x', organisation: name, role: 'membre' }, new Date());
    return { admin, other, organisationId: admin.organisationId as string };
  }

  it('the last administrator can neither leave, be demoted, be removed nor delete the account while a member remains; once another is admin, she can', async () => {
    const { admin, other, organisationId } = await organisation('Couvreurs réunis');
    expect(await m.db.transaction((trx) => leaveOrganisation(trx, admin.userId, new Date()))).to.deep.equal({ kind: 'last_admin' });
    expect(await changeRole(m.db, organisationId, admin.userId, 'lecteur')).to.equal('last_admin');
    expect(await removeMember(m.db, organisationId, admin.userId)).to.equal('last_admin');
    expect((await eraseAccount(m.db, admin.userId, new Date(), ORGANISATION_GRACE_DAYS)).kind).to.equal('last_admin');
    expect(await m.db('memberships').where('organisation_id', organisationId).count({ n: '*' }).first()).to.deep.include({ n: usingNumber(2) });
    expect(await changeRole(m.db, organisationId, other.userId, 'admin')).to.equal('ok');
    const left = await m.db.transaction((trx) => leaveOrganisation(trx, admin.userId, new Date()));
    expect(left).to.deep.equal({ kind: 'left', organisationId, organisationDeleted: false });
    expect((await m.db('organisations').where('id', organisationId).first('deletion_due_at')).deletion_due_at).to.equal(null);
  });

  it('the last member leaving schedules the deletion in 30 days; before, nothing is deleted; a member joining cancels it; past it, the workspace goes', async () => {
    const { admin, other, organisationId } = await organisation('Zingueurs associés');
    const alertId = randomUUID();
    const at = new Date().toISOString();
    await m.db('alerts').insert({
      id: alertId,
      organisation_id: organisationId,
      created_by: admin.userId,
      name: 'Zinc',
      query: 'zinc',
      frequency: 'quotidien',
      sources: '[]',
      sources_watched: '[]',
      departements: '[]',
      departements_followed: '[]',
      is_active: true,
      kind: 'recherche',
      criteria: 'zinc',
      created_at: at,
    });
    await m.db('alert_events').insert({ id: randomUUID(), alert_id: alertId, organisation_id: organisationId, kind: 'nouveau_marche', source: 'marche', record_id: 'r1', occurred_at: at, created_at: at, record: '{}' });
    const start = new Date('2026-03-01T10:00:00Z');
    await m.db.transaction((trx) => leaveOrganisation(trx, other.userId, start));
    const last = await m.db.transaction((trx) => leaveOrganisation(trx, admin.userId, start));
    expect(last).to.deep.equal({ kind: 'left', organisationId, organisationDeleted: true });
    expect(await deleteDueOrganisations(m.db, new Date(start.getTime() + (ORGANISATION_GRACE_DAYS - 1) * DAY))).to.equal(0);
    expect(await m.db('organisations').where('id', organisationId).first('id')).to.not.equal(undefined);

    // Someone rejoins during the grace: kept.
    await m.db.transaction((trx) => joinOrganisation(trx, other.userId, organisationId, 'admin', start));
    expect((await m.db('organisations').where('id', organisationId).first('deletion_due_at')).deletion_due_at).to.equal(null);
    await m.db.transaction((trx) => leaveOrganisation(trx, other.userId, start));

    expect(await deleteDueOrganisations(m.db, new Date(start.getTime() + (ORGANISATION_GRACE_DAYS + 1) * DAY))).to.equal(1);
    for (const table of ['organisations', 'alerts', 'alert_events']) {
      const where = table === 'organisations' ? { id: organisationId } : { organisation_id: organisationId };
      expect(await m.db(table).where(where).first(), table).to.equal(undefined);
    }
  });
});

function usingNumber(n: number): number | string {
  return process.env.TEST_DB === 'postgres' ? String(n) : n;
}

