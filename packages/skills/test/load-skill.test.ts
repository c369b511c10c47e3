import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, type Tool } from '@bridle/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSkill, MAX_SKILL_FILE_BYTES } from '../src/load-skill';

function tool(name: string): Tool {
  return { name, description: name, parameters: { type: 'object' }, execute: () => name };
}
const clock = tool('clock');
const calculator = tool('calculator');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridle-skill-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(text: string): string {
  writeFileSync(join(dir, 'SKILL.md'), text);
  return join(dir, 'SKILL.md');
}

async function loadError(options = {}): Promise<string> {
  try {
    await loadSkill(dir, options);
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadSkill', () => {
  it('reads the frontmatter, the body as instructions and tools from the catalogue', async () => {
    write(
      '---\nname: timekeeper\ndescription: Tells the time.\ntools: [clock, calculator]\n---\n\n# Time\nCall the clock.\n',
    );
    const skill = await loadSkill(dir, { catalogue: [clock, calculator, tool('unused')] });
    expect(skill.name).toBe('timekeeper');
    expect(skill.description).toBe('Tells the time.');
    expect(skill.instructions).toBe('# Time\nCall the clock.');
    expect(skill.tools).toEqual([clock, calculator]);
  });

  it('accepts a catalogue record, CRLF line ends, a BOM and no tools', async () => {
    write('\uFEFF---\r\nname: plain\r\ndescription: "Plain: text"\r\n---\r\nBe plain.\r\n');
    const skill = await loadSkill(dir, { catalogue: { clock } });
    expect(skill).toMatchObject({ name: 'plain', description: 'Plain: text', instructions: 'Be plain.', tools: [] });
  });

  it('says when SKILL.md is missing', async () => {
    expect(await loadError()).toBe(
      `No skill at ${join(dir, 'SKILL.md')}: a skill folder needs a SKILL.md with YAML frontmatter (name, description) and the instructions below it.`,
    );
  });

  it('says when SKILL.md is a folder or too large', async () => {
    mkdirSync(join(dir, 'SKILL.md'));
    expect(await loadError()).toContain('is not a file');
    rmSync(join(dir, 'SKILL.md'), { recursive: true });
    write(`---\nname: big\ndescription: d\n---\n${'x'.repeat(MAX_SKILL_FILE_BYTES)}`);
    expect(await loadError()).toContain(`more than the ${MAX_SKILL_FILE_BYTES} allowed`);
  });

  it('rejects a file without frontmatter', async () => {
    const path = write('# Just markdown\n');
    expect(await loadError()).toBe(
      `${path} has no YAML frontmatter: start the file with a "---" line, then "name: ..." and "description: ...", then a "---" line, then the instructions.`,
    );
  });

  it('rejects invalid YAML and a frontmatter that is not a mapping', async () => {
    const path = write('---\nname: [unclosed\ndescription: d\n---\nbody\n');
    expect(await loadError()).toMatch(
      new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the frontmatter is not valid YAML: `),
    );
    write('---\n- a\n- b\n---\nbody\n');
    expect(await loadError()).toContain(
      'the frontmatter must be a YAML mapping with name and description, got an array.',
    );
  });

  it('rejects missing or mistyped fields, naming the field', async () => {
    const path = write('---\ndescription: d\n---\nbody\n');
    expect(await loadError()).toBe(`${path}: frontmatter "name" must be a non-empty string, got undefined.`);
    write('---\nname: x\ndescription: 42\n---\nbody\n');
    expect(await loadError()).toBe(`${path}: frontmatter "description" must be a non-empty string, got number 42.`);
    write('---\nname: "bad name"\ndescription: d\n---\nbody\n');
    expect(await loadError()).toContain(`${path}: Invalid skill name "bad name"`);
    write('---\nname: x\ndescription: d\ntools: clock\n---\nbody\n');
    expect(await loadError()).toBe(`${path}: frontmatter "tools" must be a list of tool names, got "clock".`);
  });

  it('rejects a tool not in the catalogue, listing the available ones', async () => {
    const path = write('---\nname: x\ndescription: d\ntools: [clock, shell]\n---\nbody\n');
    expect(await loadError({ catalogue: [calculator, clock] })).toBe(
      `${path}: tool "shell" is not in the catalogue (available: calculator, clock). Remove it from "tools" or pass a catalogue that has it.`,
    );
    expect(await loadError()).toContain('(available: none)');
  });

  it('rejects an empty body', async () => {
    const path = write('---\nname: x\ndescription: d\n---\n   \n');
    expect(await loadError()).toBe(`${path} has no instructions: write them below the frontmatter.`);
  });
});
