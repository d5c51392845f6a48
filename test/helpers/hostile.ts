/** Module paths a remote loop may have: every one must reach the remote program as one word. */
export const HOSTILE_PATHS = [
  '/home/u/AiTasks/with space',
  "/home/u/AiTasks/it's",
  '/home/u/AiTasks/"dq"',
  '/home/u/AiTasks/$(touch pwned)',
  '/home/u/AiTasks/`touch pwned`',
  '/home/u/AiTasks/a;b&&c|d',
  '-rf',
  '--version',
  '/home/u/AiTasks/$HOME ${x} * ? [a] ~ #x !',
  '/home/u/AiTasks/new\nline',
  '/home/u/AiTasks/back\\slash\\\\',
  'é❯∙ 日本',
];
