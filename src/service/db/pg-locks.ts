// The advisory lock keys the service uses on a shared PostgreSQL database: one class for txdesk, one object per role.
/** pg_advisory_lock(class, object): 'tx' in ASCII as the class, so txdesk's locks never collide with another app's. */
export const LOCK_CLASS = 0x7478;
export const LOCKS = {
  /** Held while migrations run, so exactly one instance applies them. */
  migrations: 1,
  /** Held for its whole life by the instance that indexes tokens. */
  indexer: 2,
  /** Held for its whole life by the instance that watches receipts. */
  watcher: 3,
  /** Taken by each write of the token index (per transaction), so two writers never interleave. */
  indexWrite: 4,
} as const;
export type LockName = keyof typeof LOCKS;
