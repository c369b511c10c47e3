import type { ProjectSettings } from '@bridle/models';
import type { AgentSetup } from './agent-setup';
import { type ApprovalRules, approvalRules } from './permission-rules';
import { canonicalFolder } from './project-store-url';

/**
 * The approval rules of a `run` or `chat`: remembered for the project folder (the workspace, else the working
 * directory) in the user's `permissions.json`, plus the config files' `permissions.allow` (a folder's only once
 * trusted: `loadProject` leaves an untrusted folder's config out). Throws `ConfigError` for a corrupt file.
 */
export function cliApprovalRules(cwd: string, setup: AgentSetup, project: ProjectSettings): ApprovalRules {
  return approvalRules({
    folder: canonicalFolder(setup.workspaceRoot ?? cwd),
    configDir: project.configDir,
    ...(setup.workspace === undefined ? {} : { workspace: setup.workspace }),
    ...(project.config.permissions?.allow ? { configRules: project.config.permissions.allow } : {}),
  });
}
