export { type AnalystSkillOptions, analystSkill } from './analyst-skill';
export { type AssistantSkillOptions, assistantSkill } from './assistant-skill';
export { type CodingSkillOptions, type CommandPresets, codingSkill } from './coding-skill';
export { type ComposedSkills, type ComposeSkillsOptions, composeSkills, skillSection } from './compose-skills';
export { type LoadSkillOptions, loadSkill, MAX_SKILL_FILE_BYTES, type ToolCatalogue } from './load-skill';
export { defineSkill, MAX_DESCRIPTION_CHARS, type Skill, type SkillDefinition } from './skill';
export { createToolbox, type Toolbox, type ToolboxOptions } from './toolbox';
