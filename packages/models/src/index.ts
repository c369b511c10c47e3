export {
  type ApprovalPolicy,
  type BridleConfig,
  type ConfigCommandPreset,
  type ConfigMcpServer,
  type ConfigPermissions,
  type ConfigSandbox,
  parseBridleConfig,
} from './bridle-config';
export { bridleConfigDir } from './config-dir';
export { DEFAULT_ANTHROPIC_MODEL, DEFAULT_OPENAI_MODEL, defaultModelId, type Environment } from './default-model-id';
export { displayText } from './display-text';
export { isBridleSetting, WORKSPACE_KEY_VARIABLES } from './environment-variables';
export { type FallbackResponse, fallback, shouldFallBack } from './fallback';
export {
  listTrustedFolders,
  revokeFolder,
  type TrustedFolder,
  type TrustFolderResult,
  trustFolder,
} from './folder-trust';
export { type LoadEnvFileResult, loadEnvFile, parseEnvText } from './load-env-file';
export { type LoadProjectOptions, loadProject, type ProjectSettings } from './load-project';
export {
  type FolderTrust,
  type LoadProjectConfigOptions,
  loadProjectConfig,
  mergeConfig,
  type ProjectConfig,
  type ProjectFolder,
  type TrustReview,
  trustListPath,
  userConfigPath,
} from './load-project-config';
export { type LoadWorkspaceEnvOptions, type LoadWorkspaceEnvResult, loadWorkspaceEnv } from './load-workspace-env';
export { checkModelPrice, type ModelPrice, modelPrices, type PublishedModelPrice } from './model-prices';
export { type ModelProvider, type ModelSpec, parseModelId } from './parse-model-id';
export {
  formatPermissionRule,
  MAX_PERMISSION_RULE_CHARS,
  type PermissionRule,
  parsePermissionRule,
} from './permission-rule';
export {
  type PermissionList,
  permissionsPath,
  type RememberedRule,
  readPermissionList,
  updatePermissionList,
} from './permissions-store';
export { PROJECT_CONFIG_FILE, PROJECT_MCP_FILE } from './project-files';
export { MAX_PROJECT_FILE_BYTES } from './read-project-file';
export { type ResolveModelOptions, resolveModel } from './resolve-model';
export { readTrustList, type TrustDecision, type TrustList, updateTrustList } from './trust-store';
export { usageCost } from './usage-cost';
export { type WithCostOptions, withCost } from './with-cost';
