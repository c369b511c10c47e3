// Helpers shared by the Bridle packages (adapters, core, batch, tools). Not part of the public API: names and
// shapes may change in any release. Import from `@bridle/protocol/internal`.
export { type BackoffPolicy, backoffDelay, sleep } from './internal/backoff';
export { canonicalJson } from './internal/canonical-json';
export { connectionDetail, displayURL } from './internal/connection-detail';
export { errorMessage } from './internal/error-message';
export { type IntegerRange, integerOption } from './internal/integer-option';
export { isThenable } from './internal/is-thenable';
export { isJsonLeaf } from './internal/json-leaf';
export { type ClientErrorClasses, mapClientError } from './internal/map-client-error';
export { OutputBuffer } from './internal/output-buffer';
export { parseToolArguments } from './internal/parse-tool-arguments';
export {
  codeForStatus,
  type ProviderErrorExtra,
  providerAdvice,
  providerError,
} from './internal/provider-error';
export { toRe2Syntax } from './internal/re2-syntax';
export { redactCredentials } from './internal/redact-credentials';
export { wireSchema } from './internal/wire-schema';
