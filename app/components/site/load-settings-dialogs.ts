/**
 * The settings dialogs (React Aria modal and both forms) are fetched only when a signed-in person
 * opens one or the menu that leads to them: a signed-out page never loads their code.
 */
export const loadSettingsDialogs = () => import("./site-settings-dialogs");
