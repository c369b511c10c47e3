/** The built-in skills `--skill` accepts by name. */
export const BUILT_IN_SKILLS = ['assistant', 'coding', 'analyst'] as const;
