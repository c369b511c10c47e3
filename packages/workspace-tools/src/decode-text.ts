import { WorkspaceError } from './workspace-error';

// ignoreBOM keeps a byte order mark in the text, so an edit writes it back unchanged.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Whether bytes look like text: no NUL byte and valid UTF-8. */
export function isText(bytes: Uint8Array): boolean {
  return decodeOrUndefined(bytes) !== undefined;
}

/** Decodes UTF-8 text, refusing binary content (a NUL byte or invalid UTF-8) with a clear error. */
export function decodeText(bytes: Uint8Array, relative: string): string {
  const text = decodeOrUndefined(bytes);
  if (text === undefined) {
    throw new WorkspaceError(
      'binary_file',
      `Refused: "${relative}" looks binary (a NUL byte or invalid UTF-8); only text files can be read or edited.`,
    );
  }
  return text;
}

function decodeOrUndefined(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}
