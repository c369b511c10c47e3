// ECMAScript pattern syntax rewritten for RE2 (re2js), shared by the registry (JSON Schema patterns of
// untrusted schemas) and workspace-tools (command preset parameters): pure string work, no dependency.

/** What JavaScript's `\s` matches (RE2's `\s` is ASCII only), as the inside of a character class. */
const JS_SPACE = String.raw`\t\n\x{b}\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`;
/** What JavaScript's `.` matches without the `s` flag (RE2's `.` stops only at `\n`). */
const JS_DOT = String.raw`[^\n\r\x{2028}\x{2029}]`;
const HEX4 = /^[0-9a-fA-F]{4}$/;
/** ECMAScript's long Unicode general category names, which RE2 spells only short. */
const CATEGORIES: Record<string, string> = {
  Letter: 'L',
  Cased_Letter: 'LC',
  Uppercase_Letter: 'Lu',
  Lowercase_Letter: 'Ll',
  Titlecase_Letter: 'Lt',
  Modifier_Letter: 'Lm',
  Other_Letter: 'Lo',
  Mark: 'M',
  Combining_Mark: 'M',
  Nonspacing_Mark: 'Mn',
  Spacing_Mark: 'Mc',
  Enclosing_Mark: 'Me',
  Number: 'N',
  Decimal_Number: 'Nd',
  digit: 'Nd',
  Letter_Number: 'Nl',
  Other_Number: 'No',
  Punctuation: 'P',
  punct: 'P',
  Connector_Punctuation: 'Pc',
  Dash_Punctuation: 'Pd',
  Open_Punctuation: 'Ps',
  Close_Punctuation: 'Pe',
  Initial_Punctuation: 'Pi',
  Final_Punctuation: 'Pf',
  Other_Punctuation: 'Po',
  Symbol: 'S',
  Math_Symbol: 'Sm',
  Currency_Symbol: 'Sc',
  Modifier_Symbol: 'Sk',
  Other_Symbol: 'So',
  Separator: 'Z',
  Space_Separator: 'Zs',
  Line_Separator: 'Zl',
  Paragraph_Separator: 'Zp',
  Other: 'C',
  Control: 'Cc',
  cntrl: 'Cc',
  Format: 'Cf',
  Surrogate: 'Cs',
  Private_Use: 'Co',
  Unassigned: 'Cn',
};
const PROPERTY = /^\{(?:(?:General_Category|gc|Script|sc)=)?([A-Za-z_]+)\}/;
const CODE_POINT = /^\{([0-9a-fA-F]{1,6})\}$/;

/**
 * Rewrites the ECMAScript pattern syntax RE2 spells differently (`\uXXXX`, `\u{X}`, `\cX`, `\p{Letter}`,
 * `\s`, `.`, `[^]`, `[]`, a `[` inside a class) so a JSON Schema `pattern` means the same on RE2. Anything RE2 has
 * no linear-time form for (lookaround, backreferences) is left as it is, and RE2 refuses it.
 */
export function toRe2Syntax(source: string): string {
  let out = '';
  let inClass = false;
  for (let index = 0; index < source.length; index++) {
    const char = source[index] as string;
    if (char === '\\') {
      const next = source[index + 1];
      if (next === undefined) return out + char;
      if (next === 'u') {
        const four = source.slice(index + 2, index + 6);
        const braced = CODE_POINT.exec(source.slice(index + 2, source.indexOf('}', index) + 1));
        if (HEX4.test(four)) {
          out += `\\x{${four}}`;
          index += 5;
          continue;
        }
        if (braced !== null) {
          out += `\\x{${braced[1]}}`;
          index += 2 + (braced[0] as string).length - 1;
          continue;
        }
      }
      const letter = source[index + 2];
      if (next === 'c' && letter !== undefined && /^[A-Za-z]$/.test(letter)) {
        out += `\\x{${(letter.charCodeAt(0) % 32).toString(16)}}`;
        index += 2;
        continue;
      }
      const property = next === 'p' || next === 'P' ? PROPERTY.exec(source.slice(index + 2)) : null;
      if (property !== null) {
        const name = property[1] as string;
        out += `\\${next}{${Object.hasOwn(CATEGORIES, name) ? CATEGORIES[name] : name}}`;
        index += 1 + (property[0] as string).length;
        continue;
      }
      if (next === 's') out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
      else if (next === 'S' && !inClass) out += `[^${JS_SPACE}]`;
      else out += char + next;
      index += 1;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      out += char === '[' ? '\\[' : char;
      continue;
    }
    if (char === '.') out += JS_DOT;
    else if (char === '[') {
      // In JavaScript `[]` matches nothing and `[^]` anything; RE2 reads a `]` there as a literal.
      if (source.startsWith('[^]', index)) {
        out += String.raw`[\x{0}-\x{10ffff}]`;
        index += 2;
      } else if (source.startsWith('[]', index)) {
        out += String.raw`[^\x{0}-\x{10ffff}]`;
        index += 1;
      } else {
        inClass = true;
        out += char;
        if (source[index + 1] === '^') {
          out += '^';
          index += 1;
        }
      }
    } else out += char;
  }
  return out;
}
