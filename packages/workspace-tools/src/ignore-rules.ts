import ignore, { type Ignore } from 'ignore';

/** Names never walked when ignore rules apply, with or without a `.gitignore`. */
const ALWAYS_SKIPPED = new Set(['.git', 'node_modules']);
/** Largest ignore file read; a bigger one is not applied. */
export const MAX_IGNORE_FILE_BYTES = 256 * 1024;

/** The rules of one ignore file and the directory (segments from the root) whose paths they judge. */
interface Layer {
  base: readonly string[];
  rules: Ignore;
}

/**
 * Git's ignore rules as a walk meets them: `.git/info/exclude` (lowest precedence), then each
 * `.gitignore` from the root down, a deeper file overriding a shallower one and negations (`!keep.log`)
 * re-including, as git does. Matching is the `ignore` package's (the rules of git's own matcher). An
 * ignored directory is not entered, so nothing under it can be re-included, as in git. `.git` and
 * `node_modules` are always skipped. Immutable: `with()` returns a new stack for a subdirectory.
 */
export class IgnoreRules {
  private constructor(private readonly layers: readonly Layer[]) {}

  /** No rules yet, but `.git` and `node_modules` skipped. */
  static empty(): IgnoreRules {
    return new IgnoreRules([]);
  }

  /** These rules plus the text of an ignore file in the directory `base`. A file with no rule adds nothing. */
  with(base: readonly string[], text: string | undefined): IgnoreRules {
    if (text === undefined || text.trim() === '') return this;
    return new IgnoreRules([...this.layers, { base, rules: ignore({ allowRelativePaths: true }).add(text) }]);
  }

  /** Whether the entry at `segments` (from the root) is skipped; `directory` adds git's trailing slash. */
  ignores(segments: readonly string[], directory: boolean): boolean {
    const name = segments.at(-1);
    if (name !== undefined && ALWAYS_SKIPPED.has(name.toLowerCase())) return true;
    for (let index = this.layers.length - 1; index >= 0; index--) {
      const layer = this.layers[index]!;
      if (layer.base.length >= segments.length) continue;
      const relative = segments.slice(layer.base.length).join('/') + (directory ? '/' : '');
      let verdict: { ignored: boolean; unignored: boolean };
      try {
        verdict = layer.rules.test(relative);
      } catch {
        continue; // a name the matcher cannot take (it never throws for our checked names): not ignored
      }
      if (verdict.ignored) return true;
      if (verdict.unignored) return false;
    }
    return false;
  }
}
