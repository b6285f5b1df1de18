import type { Route } from "./+types/audit-csv";
import { requestInfoContext } from "~/context";
import { requireStaff } from "~/server/admin/context.server";
import { exportAuditCsv, recordAudit } from "~/server/audit/audit.server";

/** /admin/audit.csv: the filtered audit log as a CSV download (staff only; the export itself is audited). */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { db, staff, origin } = await requireStaff(request, context.get(requestInfoContext));
  const params = new URL(request.url).searchParams;
  const get = (k: string) => (params.get(k) ?? "").trim().slice(0, 200);
  const filter = { actor: get("actor"), member: get("member"), action: get("action"), from: get("from"), to: get("to") };
  const result = await exportAuditCsv(db, filter);
  await recordAudit(db, { actor_id: staff.id, actor_email: staff.email, action: "audit.export", subject_type: "audit_log", after: { filter, rows: result.rows, truncated: result.truncated }, request_id: origin.request_id, ip: origin.ip });
  const stamp = new Date().toISOString().slice(0, 10);
  return new Response(result.csv, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="audit-log-${stamp}.csv"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
