export { connectMcp } from './connect-mcp';
export { type LoadMcpConfigOptions, loadMcpConfig, parseMcpConfig } from './load-mcp-config';
export { type McpServeHandle, type ServeMcpOptions, serveMcp } from './serve-mcp';
export { mcpToolName } from './tool-name';
export type {
  McpConnection,
  McpConnectOptions,
  McpHttpServer,
  McpProgress,
  McpServerConfig,
  McpStdioServer,
  McpTrust,
} from './types';
