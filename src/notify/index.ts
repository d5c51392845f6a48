export { NOTIFYING_KINDS, notificationFor, type Notification, type NotifyTopic } from './decide.js';
export { Notifier, type NotifierOptions } from './notifier.js';
export { admit, NOTIFY_WINDOW_MS, type SentAt } from './rateLimit.js';
export { BELL, osc9, tmuxDisplayArgv, tmuxPassthrough } from './sequences.js';
export { cleanText, MAX_NOTIFY_LENGTH } from './text.js';
export { runUserTmux } from './tmux.js';
