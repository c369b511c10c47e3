export { DEFAULT_STORE_LIMITS, MAX_ID_CHARS, MAX_LIST_LIMIT, MAX_SEQUENCE, type StoreLimits } from './limits';
export { type OpenQuotaLedgerOptions, openQuotaLedger } from './open-quota-ledger';
export { type OpenStoreOptions, openStore } from './open-store';
export { DEFAULT_STORE_URL } from './parse-store-url';
export { type RecoverRunsOptions, type RunRecovery, recoverRuns } from './recover-runs';
export { redactUrl } from './redact-url';
export { promptTitle } from './run-title';
export { StoreError, type StoreErrorCode } from './store-error';
