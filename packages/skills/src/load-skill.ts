import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError, describeValue, type Tool } from '@bridle/protocol';
import { defineSkill, type Skill } from './skill';

/** Tools a SKILL.md may name in its `tools:` list, by name or as a list. */
export type ToolCatalogue = readonly Tool[] | Readonly<Record<string, Tool>>;

/** Options of {@link loadSkill}. */
export interface LoadSkillOptions {
  /** The tools the frontmatter's `tools: [names]` may pick from. Default: none. */
  catalogue?: ToolCatalogue;
}

/** Largest SKILL.md read, in bytes. */
export const MAX_SKILL_FILE_BYTES = 256 * 1024;

const FRONTMATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

function catalogueMap(catalogue: ToolCatalogue | undefined): Map<string, Tool> {
  if (catalogue === undefined) return new Map();
  if (Array.isArray(catalogue)) return new Map((catalogue as readonly Tool[]).map((tool) => [tool.name, tool]));
  return new Map(Object.entries(catalogue as Record<string, Tool>));
}

/**
 * Reads a skill folder: `DIR/SKILL.md` with YAML frontmatter (`name`, `description`, optional
 * `tools: [names]`) between `---` lines; the Markdown body is the instructions. Tools named in
 * `tools` are taken from `options.catalogue`. Throws `ConfigError` naming the file and the fix when the
 * file is missing or too large, the frontmatter is absent or not valid YAML, a field is missing or of
 * the wrong type, or a tool is not in the catalogue (the message lists the available ones).
 */
export async function loadSkill(dir: string, options: LoadSkillOptions = {}): Promise<Skill> {
  const path = join(resolve(dir), 'SKILL.md');
  const text = await readSkillFile(path);
  const match = FRONTMATTER.exec(text.replace(/^\uFEFF/, ''));
  if (!match) {
    throw new ConfigError(
      `${path} has no YAML frontmatter: start the file with a "---" line, then "name: ..." and "description: ...", then a "---" line, then the instructions.`,
    );
  }
  // Loaded here, not with the package: only a skill folder needs a YAML parser (the built-in skills are code).
  const { parse: parseYaml } = await import('yaml');
  let data: unknown;
  try {
    data = parseYaml(match[1] as string);
  } catch (error) {
    throw new ConfigError(`${path}: the frontmatter is not valid YAML: ${(error as Error).message.split('\n')[0]}`, {
      cause: error,
    });
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new ConfigError(
      `${path}: the frontmatter must be a YAML mapping with name and description, got ${describeValue(data)}.`,
    );
  }
  const fields = data as Record<string, unknown>;
  for (const field of ['name', 'description'] as const) {
    if (typeof fields[field] !== 'string' || (fields[field] as string).trim() === '') {
      throw new ConfigError(
        `${path}: frontmatter "${field}" must be a non-empty string, got ${describeValue(fields[field])}.`,
      );
    }
  }
  const tools = pickTools(path, fields.tools, catalogueMap(options.catalogue));
  const instructions = text
    .replace(/^\uFEFF/, '')
    .slice(match[0].length)
    .trim();
  if (instructions === '') throw new ConfigError(`${path} has no instructions: write them below the frontmatter.`);
  try {
    return defineSkill({ name: fields.name as string, description: fields.description as string, instructions, tools });
  } catch (error) {
    if (ConfigError.isInstance(error)) throw new ConfigError(`${path}: ${error.message}`, { cause: error });
    throw error;
  }
}

async function readSkillFile(path: string): Promise<string> {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new ConfigError(`${path} is not a file: a skill folder needs a SKILL.md file.`);
    if (info.size > MAX_SKILL_FILE_BYTES) {
      throw new ConfigError(
        `${path} is ${info.size} bytes, more than the ${MAX_SKILL_FILE_BYTES} allowed: keep SKILL.md short and move reference material into tools.`,
      );
    }
    return await readFile(path, 'utf8');
  } catch (error) {
    if (ConfigError.isInstance(error)) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ConfigError(
        `No skill at ${path}: a skill folder needs a SKILL.md with YAML frontmatter (name, description) and the instructions below it.`,
      );
    }
    throw new ConfigError(`Cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
}

function pickTools(path: string, value: unknown, catalogue: Map<string, Tool>): Tool[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((name) => typeof name !== 'string')) {
    throw new ConfigError(`${path}: frontmatter "tools" must be a list of tool names, got ${describeValue(value)}.`);
  }
  return (value as string[]).map((name) => {
    const tool = catalogue.get(name);
    if (tool === undefined) {
      const available = [...catalogue.keys()].sort().join(', ') || 'none';
      throw new ConfigError(
        `${path}: tool "${name}" is not in the catalogue (available: ${available}). Remove it from "tools" or pass a catalogue that has it.`,
      );
    }
    return tool;
  });
}
