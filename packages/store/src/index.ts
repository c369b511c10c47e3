export { DEFAULT_STORE_LIMITS, MAX_ID_CHARS, MAX_LIST_LIMIT, MAX_SEQUENCE, type StoreLimits } from './limits';
export { type OpenStoreOptions, openStore } from './open-store';
export { DEFAULT_STORE_URL } from './parse-store-url';
export { redactUrl } from './redact-url';
export { StoreError, type StoreErrorCode } from './store-error';
