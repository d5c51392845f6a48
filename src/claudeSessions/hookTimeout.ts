/**
 * The PermissionRequest hook's `timeout` as `autodeck init` registers it (seconds): a
 * person may take long to answer a background session, and Claude Code kills a hook that
 * outlives its timeout (its dialog then stays, answerable only by attaching).
 */
export const PERMISSION_HOOK_TIMEOUT_S = 86_400;
