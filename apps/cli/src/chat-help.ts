// No imports: `bridle chat --help` shows this list without loading the chat's code.

/** The commands of `bridle chat`, in the order `/help` lists them. */
export const CHAT_COMMANDS: readonly { name: string; usage: string; help: string }[] = [
  { name: '/model', usage: '/model [id]', help: 'show the model, or switch to another (the conversation is kept)' },
  { name: '/compact', usage: '/compact', help: 'summarize the conversation except its first and newest turns' },
  { name: '/cost', usage: '/cost', help: 'tokens and cost so far in this chat' },
  { name: '/clear', usage: '/clear', help: 'start a new session (this one is kept: /resume brings it back)' },
  { name: '/resume', usage: '/resume [n|id]', help: "list this folder's sessions, or switch to one" },
  { name: '/runs', usage: '/runs', help: 'the newest runs in the store' },
  { name: '/reset', usage: '/reset', help: 'forget the conversation of this session' },
  { name: '/usage', usage: '/usage', help: 'runs and tokens so far (as /cost)' },
  { name: '/help', usage: '/help', help: 'this list' },
  { name: '/exit', usage: '/exit', help: 'leave (or Ctrl-D)' },
];

/** The commands inside `bridle chat` (shown by `bridle chat --help` and by `/help` in the chat). */
export const CHAT_HELP = [
  ...CHAT_COMMANDS.map((command) => `${command.usage.padEnd(15)} ${command.help}`),
  'Tab completes a command. Ctrl-C cancels the answer in progress and keeps the conversation.',
].join('\n');
