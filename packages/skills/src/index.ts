// One concept, one place: the skill type and the rules that compose skills live in @bridle/core (`agent.use`);
// they are re-exported here, where skills are made.
export {
  type ComposedSkills,
  type ComposeSkillsOptions,
  composeSkills,
  type Skill,
  skillSection,
} from '@bridle/core';
export { type AnalystSkillOptions, analystSkill } from './analyst-skill';
export { type AssistantSkillOptions, assistantSkill } from './assistant-skill';
export { type CodingSkillOptions, type CommandPresets, codingSkill } from './coding-skill';
export { type LoadSkillOptions, loadSkill, MAX_SKILL_FILE_BYTES, type ToolCatalogue } from './load-skill';
export { defineSkill, MAX_DESCRIPTION_CHARS, type SkillDefinition } from './skill';
export { createToolbox, type Toolbox, type ToolboxOptions } from './toolbox';
