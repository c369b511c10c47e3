// C0/C1 controls, line and paragraph separators, bidi overrides and isolates: a file or folder name
// carrying them could rewrite what the terminal shows the user in the trust prompt.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
// What JSON.stringify leaves as it is among those.
const LEFT_BY_JSON = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/**
 * Text from a workspace (a path, a command, a model id) made safe to print: unchanged when plain,
 * otherwise JSON-quoted with every control character escaped, so it shows instead of acting on the terminal.
 */
export function displayText(text: string): string {
  if (!UNSAFE.test(text)) return text;
  return JSON.stringify(text).replace(LEFT_BY_JSON, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
