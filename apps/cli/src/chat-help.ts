/** The commands inside `bridle chat` (shown by `bridle chat --help` and by `/help` in the chat). */
export const CHAT_HELP =
  '/reset  forget the conversation\n/usage  tokens and runs so far\n/exit   leave (or Ctrl-D)\nCtrl-C cancels the answer in progress and keeps the conversation.';
