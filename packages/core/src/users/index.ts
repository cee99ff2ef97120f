export { MIN_PASSWORD_LENGTH, hashPassword, verifyPassword } from "./passwords.ts";
export {
  PANEL_ROLES,
  PanelUserError,
  acceptPanelInvite,
  authenticatePanelUser,
  cancelPanelInvite,
  changePanelUserRole,
  confirmPanelPassword,
  createPanelUser,
  findPanelInvite,
  invitePanelUser,
  isPanelRole,
  listPanelInvites,
  listPanelUsers,
  removePanelUser,
} from "./users.ts";
export type { CreateUserInput, PanelInviteView, PanelRole, PanelUserView, PasswordCheckPurpose } from "./users.ts";
export {
  createPanelSession,
  deletePanelSession,
  loadPanelSession,
  markPanelSessionReauthenticated,
} from "./sessions.ts";
export type { PanelSessionLifetime, PanelSessionUser } from "./sessions.ts";
