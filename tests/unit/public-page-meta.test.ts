import { describe, expect, it } from "vitest";
import { meta as loginMeta } from "~/routes/auth/login";

/**
 * What search engines are told about the sign-in page (Lighthouse's SEO audits): the page itself is
 * indexed, with a description, so that a member searching for the credit union's sign-in finds this
 * address rather than a lookalike's; the one-time-code step belongs to one sign-in in progress and
 * is not indexed.
 */
describe("sign-in page meta", () => {
  const root = { id: "root", loaderData: { institution: { name: "Harborview Community Credit Union" } } };
  type Args = Parameters<typeof loginMeta>[0];

  it("lets the sign-in step be indexed, with a description", () => {
    const tags = loginMeta({ matches: [root], loaderData: { step: null } } as unknown as Args);
    expect(tags).toContainEqual({ title: "Sign in | Harborview Community Credit Union" });
    expect(tags).toContainEqual({ name: "description", content: expect.stringMatching(/online banking/) });
    expect(tags).not.toContainEqual(expect.objectContaining({ name: "robots" }));
  });

  it("keeps the code step out of search results", () => {
    const tags = loginMeta({
      matches: [root],
      loaderData: { step: { method: "email", email_masked: "m***@example.com" } },
    } as unknown as Args);
    expect(tags).toContainEqual({ title: "Verify OTP | Harborview Community Credit Union" });
    expect(tags).toContainEqual({ name: "robots", content: "noindex" });
  });
});
