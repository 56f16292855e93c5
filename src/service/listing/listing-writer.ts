// The listing's public write interface: everything a feeder (the indexer) may use to change the listing index.
// The feeder never names a listing table; the schema, the writer and the order keys live behind this module.
export { indexSchemaSteps, LISTING_SCHEMA_STEPS } from './listing-schema.js';
export { createIndexWriter, tokenKeys } from './listing-store-write.js';
export type { ContractRow, IdRow, IndexWriter, NewContract, SqliteIndexWriter, TokenRow } from './listing-store-write.js';
export { addressBytes, holdingIdKey, tokenIdFromKey, tokenIdKey, transferKey } from './listing-store-keys.js';
export { bumpGeneration, DEFAULT_BUCKET_SIZE } from './listing-store-rank.js';
export { rebuildDerived } from './listing-store-rebuild.js';
export { createIndexLookups, type IndexLookups } from './listing-store-lookups.js';
