/**
 * Who acts: the signed-in person a service acts for (a member, or a staff member), as the audit
 * log, notices and emails name them. The one shape every service takes, whatever the role.
 */
export interface Actor {
  id: string;
  email: string;
}
