// The accounts store contract, run on both adapters (SQLite and PostgreSQL), and the accounts on PostgreSQL shared by
// two instances: a session issued by one is valid on the other, and a logout on one is seen by the other.
import { afterEach, describe, expect, it } from 'vitest';
import { createAccounts } from '../../../src/service/accounts/accounts.js';
import type { AccountsStore } from '../../../src/service/accounts/accounts-store.js';
import { openSqliteAccountsStore } from '../../../src/service/accounts/sqlite/accounts-store-sqlite.js';
import { openPostgresAccountsStore } from '../../../src/service/accounts/postgres/accounts-store-postgres.js';
import { backends, type BackendPlace } from '../../support/service/store-backends.js';

const user = (n: number) => ({
  email: `u${n}@example.com`,
  name: `U${n}`,
  organization: 'O',
  passwordHash: `hash${n}`,
  clientId: `client${n}`,
});

describe.each(backends)('accounts store on $name', (backend) => {
  const places: BackendPlace[] = [];
  afterEach(async () => {
    for (const p of places.splice(0)) await p.close();
  });
  async function open(place?: BackendPlace): Promise<{ store: AccountsStore; place: BackendPlace }> {
    const at = place ?? (await backend.fresh());
    if (!place) places.push(at);
    return { store: at.sqlite ? openSqliteAccountsStore(at.sqlite) : await openPostgresAccountsStore(at.pool!), place: at };
  }

  it('inserts users once per e-mail and finds them by e-mail, id and clientId', async () => {
    const { store } = await open();
    expect(await store.insert(user(1), 1_000)).toBe(true);
    expect(await store.insert({ ...user(2), email: 'u1@example.com' }, 2_000)).toBe(false);
    expect(await store.insert(user(2), 2_000)).toBe(true);
    const u1 = await store.byEmail('u1@example.com');
    expect(u1).toEqual({
      id: expect.any(Number),
      email: 'u1@example.com',
      name: 'U1',
      organization: 'O',
      passwordHash: 'hash1',
      clientId: 'client1',
      tokenGeneration: 0,
    });
    expect(await store.byId(u1!.id)).toEqual(u1);
    expect(await store.byEmail('nobody@example.com')).toBeUndefined();
    expect(await store.byId(999_999)).toBeUndefined();
    expect(await store.hasClientId('client2')).toBe(true);
    expect(await store.hasClientId('client3')).toBe(false);
    expect((await store.allClientIds()).sort()).toEqual(['client1', 'client2']);
  });

  it('changes a password with or without ending older sessions', async () => {
    const { store } = await open();
    await store.insert(user(1), 0);
    const { id } = (await store.byEmail('u1@example.com'))!;
    await store.setPassword(id, 'h2', false);
    expect(await store.byId(id)).toMatchObject({ passwordHash: 'h2', tokenGeneration: 0 });
    await store.setPassword(id, 'h3', true);
    expect(await store.byId(id)).toMatchObject({ passwordHash: 'h3', tokenGeneration: 1 });
  });

  it('keeps one signing secret for every store on the database, and a deny-list pruned by expiry', async () => {
    const { store, place } = await open();
    const secret = await store.tokenSecret();
    expect(secret.length).toBe(32);
    const { store: second } = await open(place);
    expect((await second.tokenSecret()).equals(secret)).toBe(true);
    await store.insert(user(1), 0);
    const { id } = (await store.byEmail('u1@example.com'))!;
    await store.revoke('tok-a', id, 100, 50);
    await store.revoke('tok-a', id, 100, 50);
    expect(await second.isRevoked('tok-a')).toBe(true);
    expect(await second.isRevoked('tok-b')).toBe(false);
    // A later logout prunes rows whose token has expired anyway.
    await store.revoke('tok-b', id, 300, 150);
    expect(await store.isRevoked('tok-a')).toBe(false);
    expect(await store.isRevoked('tok-b')).toBe(true);
  });

  it('keeps at most one API secret hash per user, replaced only when asked, seen by every store on the database', async () => {
    const { store, place } = await open();
    await store.insert(user(1), 0);
    await store.insert(user(2), 0);
    const [u1, u2] = [(await store.byEmail('u1@example.com'))!, (await store.byEmail('u2@example.com'))!];
    expect(await store.apiSecretCreatedAt(u1.id)).toBeUndefined();
    expect(await store.putApiSecret(u1.id, 'hash-a', 1_000, false)).toBe(true);
    expect(await store.putApiSecret(u1.id, 'hash-b', 2_000, false)).toBe(false);
    expect(await store.byApiSecretHash('hash-a')).toEqual(u1);
    expect(await store.byApiSecretHash('hash-b')).toBeUndefined();
    expect(await store.apiSecretCreatedAt(u1.id)).toBe(1_000);
    expect(await store.putApiSecret(u2.id, 'hash-c', 1_500, false)).toBe(true);
    const { store: second } = await open(place);
    expect(await second.putApiSecret(u1.id, 'hash-b', 2_000, true)).toBe(true);
    expect(await store.byApiSecretHash('hash-a')).toBeUndefined();
    expect(await store.byApiSecretHash('hash-b')).toEqual(u1);
    expect(await store.apiSecretCreatedAt(u1.id)).toBe(2_000);
    expect(await store.deleteApiSecret(u1.id)).toBe(true);
    expect(await store.deleteApiSecret(u1.id)).toBe(false);
    expect(await second.byApiSecretHash('hash-b')).toBeUndefined();
    expect(await second.byApiSecretHash('hash-c')).toEqual(u2);
  });
});

describe('accounts of two instances on one PostgreSQL database', () => {
  const places: BackendPlace[] = [];
  afterEach(async () => {
    for (const p of places.splice(0)) await p.close();
  });

  it('accepts on one instance the session issued by the other, and honours a logout made on either', async () => {
    const place = await backends[1]!.fresh();
    places.push(place);
    const [a, b] = await Promise.all([openPostgresAccountsStore(place.pool!), openPostgresAccountsStore(place.pool!)]).then((stores) =>
      Promise.all(stores.map((s) => createAccounts(s, { openSignup: true }))),
    );
    const session = await a!.signup({ email: 'fleet@example.com', password: 'long enough pw', name: 'F', organization: '' });
    const bearer = `Bearer ${session.jwtToken}`;
    expect((await b!.authenticate(bearer)).email).toBe('fleet@example.com');
    // Not yet in b's memory: the async check finds it in the database.
    expect(b!.isKnownClientId(session.clientId)).toBe(false);
    expect(await b!.isClientId(session.clientId)).toBe(true);
    expect(b!.isKnownClientId(session.clientId)).toBe(true);
    await b!.logout(bearer);
    await expect(a!.authenticate(bearer)).rejects.toThrow(/revoked by a logout/);
  });
});
