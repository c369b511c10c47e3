import { BridleError } from '@bridle/protocol';

const WORKSPACE_MARKER = Symbol.for('bridle.error.workspace');

/** Why a workspace operation or tool call was refused or failed. */
export type WorkspaceErrorCode =
  | 'invalid_arguments'
  | 'invalid_path'
  | 'protected_path'
  | 'symlink'
  | 'hard_link'
  | 'not_found'
  | 'not_a_file'
  | 'not_a_directory'
  | 'too_large'
  | 'binary_file'
  | 'changed_during_operation'
  | 'match_count'
  | 'search_timeout'
  | 'io_error'
  | 'command_failed'
  | 'aborted';

/**
 * A refusal or failure of a workspace tool, thrown so the agent loop turns it into an error result.
 * The message names the offending value and what to do instead; `code` is stable for programs.
 */
export class WorkspaceError extends BridleError {
  readonly [WORKSPACE_MARKER] = true;
  declare readonly code: WorkspaceErrorCode;

  constructor(code: WorkspaceErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'WorkspaceError';
  }

  /** True for any workspace error, whichever copy of this package created it. */
  static override isInstance(value: unknown): value is WorkspaceError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[WORKSPACE_MARKER] === true;
  }
}
