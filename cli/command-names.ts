/** The command modules under cli/commands/ (each `<name>.ts`), as cli/program.ts dispatches them. */
export type CommandName =
  | 'exec'
  | 'daemon-start'
  | 'daemon-status'
  | 'daemon-stop'
  | 'daemon-reload'
  | 'run'
  | 'message-post'
  | 'message-history'
  | 'token-analyze'
  | 'approval-decide'
  | 'approval-get'
  | 'turn-control'
  | 'extension-install'
  | 'extension-list'
  | 'extension-remove'
  | 'store-backup'
  | 'serve'
  | 'tools-schema'
  | 'tools-list'
  | 'tools-check'
  | 'tools-log'
  | 'tools-answer'
  | 'operator-read'
  | 'daemon-logs'
  | 'watch'
  | 'completion'
  | 'audit'
  | 'console'
  | 'device';

/** The commander package, loaded lazily by cli/program.ts. */
export type Commander = typeof import('commander');
