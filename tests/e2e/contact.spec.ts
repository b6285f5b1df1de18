import http from "node:http";
import { expect, test, type Page } from "./fixtures";
import { DESKTOP, PHONE, expectNoAxeViolations, watchConsole } from "./support";

/**
 * The contact form, used as a person would (docs/product.md#contact).
 *
 * The form is rate-limited per IP address (5 messages in 10 minutes), and every browser test
 * reaches the server from 127.0.0.1. So that these tests neither use up that allowance for other
 * tests nor depend on it, each test that sends a message makes its posts leave from an address
 * of its own on the loopback network (127.0.0.0/8): the browser fills and submits the real form,
 * and Playwright hands the identical request to the server from that address.
 */
function ownAddress(): string {
  const n = () => Math.floor(Math.random() * 250) + 1;
  return `127.${n()}.${n()}.${n()}`;
}

interface Forwarded {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Sends one request to the test server from `address`. */
function requestFrom(
  address: string,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<Forwarded> {
  // The address is the socket's own: drop the per-test X-Forwarded-For of fixtures.ts.
  headers = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== "x-forwarded-for"));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: Number(url.port),
        path: url.pathname + url.search,
        method,
        localAddress: address,
        headers: { ...headers, host: url.host, "content-length": String(body.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const out: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined && !["content-length", "transfer-encoding", "connection"].includes(k))
              out[k] = Array.isArray(v) ? v.join(", ") : v;
          resolve({ status: res.statusCode ?? 500, headers: out, body: Buffer.concat(chunks) });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** From now on, the page's posts to /contact leave from `address`. */
async function postFrom(page: Page, address: string) {
  await page.route(/\/contact(\.data)?(\?.*)?$/, async (route) => {
    const request = route.request();
    if (request.method() !== "POST") return route.continue();
    const headers = await request.allHeaders();
    delete headers["accept-encoding"]; // keep the body plain for fulfill
    delete headers["content-length"];
    const answer = await requestFrom(
      address,
      new URL(request.url()),
      "POST",
      headers,
      request.postDataBuffer() ?? Buffer.alloc(0),
    );
    await route.fulfill(answer);
  });
}

async function fillValidMessage(page: Page, name = "Ada Lovelace") {
  await page.getByLabel("Full name", { exact: true }).fill(name);
  await page.getByLabel("Email address", { exact: true }).fill("ada@example.com");
  await page.getByLabel("Subject", { exact: true }).selectOption("account");
  await page
    .getByLabel("Message", { exact: true })
    .fill("Please explain the overdraft options on my checking account.");
}

test.describe("contact page", () => {
  test("shows the ways to reach us, the form and the reassurances", async ({ page }) => {
    const errors = watchConsole(page);
    await page.goto("/contact");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Contact Us");
    await expect(page.getByRole("heading", { level: 1 })).toHaveCount(1);
    // No live chat yet (app/config/features.ts): no card or hours promise it; a branch visit instead.
    for (const card of ["Email support", "Phone support", "Visit a branch"])
      await expect(page.getByRole("heading", { name: card, level: 3 })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Live chat" })).toHaveCount(0);
    await expect(page.getByRole("main")).not.toContainText(/chat/i);
    await expect(page.getByText("We reply within 24 hours.", { exact: true })).toBeVisible();
    await expect(page.getByText("Member service: Monday to Friday 8AM to 8PM EST.", { exact: true })).toBeVisible();
    await expect(page.getByRole("main").getByRole("link", { name: "Find a branch or ATM" }).first()).toHaveAttribute(
      "href",
      "/locations",
    );
    await expect(page.getByRole("link", { name: "support@harborview.example" }).first()).toHaveAttribute(
      "href",
      "mailto:support@harborview.example",
    );
    await expect(page.getByRole("link", { name: "(555) 010-4400" }).first()).toHaveAttribute(
      "href",
      "tel:+15550104400",
    );
    for (const card of ["Banking around the clock", "Dedicated account team", "Secure communication"])
      await expect(page.getByRole("heading", { name: card })).toBeVisible();

    const subject = page.getByLabel("Subject", { exact: true });
    await expect(subject.locator("option")).toHaveText([
      "Select a subject",
      "General Inquiry",
      "Account Support",
      "Loans",
      "Technical Support",
    ]);
    await expect(subject).toHaveValue("");
    await expect(page.getByLabel("Message", { exact: true })).toHaveAttribute("rows", "4");
    await expect(page.getByRole("radio", { name: "Email" })).toBeChecked();
    await expect(page.getByText("(optional)")).toHaveCount(1);
    await expect(page).toHaveTitle("Contact Us | Harborview Community Credit Union");
    await expect(page.locator('meta[name="description"]')).toHaveAttribute("content", /reply/);
    expect(errors).toEqual([]);
  });

  test("a visitor sends a message and sees a confirmation", async ({ page }) => {
    const errors = watchConsole(page);
    await postFrom(page, ownAddress());
    await page.goto("/contact");
    await fillValidMessage(page);
    await page.getByRole("button", { name: "Send message" }).click();
    const confirmation = page.getByRole("heading", { name: "Thank you, Ada. Your message has been sent." });
    await expect(confirmation).toBeVisible();
    await expect(confirmation).toBeFocused();
    await expect(page.getByText("A member of our team will email you within 24 hours.")).toBeVisible();
    await expect(page.getByText("Your reference")).toBeVisible();
    await expect(page.getByRole("definition").filter({ hasText: /^[0-9A-Z]{8}$/ })).toHaveCount(1);
    await page.getByRole("link", { name: "Send another message" }).click();
    await expect(page.getByLabel("Full name", { exact: true })).toHaveValue("");
    expect(errors).toEqual([]);
  });

  test("an empty form shows a message next to each field and focuses the first", async ({ page }) => {
    const errors = watchConsole(page);
    await postFrom(page, ownAddress());
    await page.goto("/contact");
    await page.getByRole("button", { name: "Send message" }).click();

    await expect(page.getByText("Please check the 4 highlighted fields.")).toBeVisible();
    const name = page.getByLabel("Full name", { exact: true });
    await expect(name).toBeFocused();
    const expected: [string, string][] = [
      ["Full name", "Enter your name."],
      ["Email address", "Enter your email address."],
      ["Subject", "Choose a subject."],
      ["Message", "Enter your message."],
    ];
    for (const [label, message] of expected) {
      const field = page.getByLabel(label, { exact: true });
      await expect(field).toHaveAttribute("aria-invalid", "true");
      await expect(field).toHaveAccessibleDescription(new RegExp(message.replace(".", "\\.")));
    }
    await expect(page.getByLabel(/^Phone number/)).not.toHaveAttribute("aria-invalid", "true");
    await expectNoAxeViolations(page);

    // Typing keeps what was typed; a fixed field loses its message once left.
    await name.fill("Ada Lovelace");
    await page.keyboard.press("Tab");
    await expect(name).not.toHaveAttribute("aria-invalid", "true");
    await expect(page.getByText("Enter your name.")).toHaveCount(0);
    await page.getByLabel("Email address", { exact: true }).fill("ada@");
    await page.getByRole("button", { name: "Send message" }).click();
    await expect(page.getByLabel("Email address", { exact: true })).toBeFocused();
    await expect(page.getByLabel("Email address", { exact: true })).toHaveAccessibleDescription(
      /Enter a valid email address/,
    );
    await expect(name).toHaveValue("Ada Lovelace");
    // Nothing was sent.
    await expect(page.getByRole("heading", { name: /Your message has been sent/ })).toHaveCount(0);
    expect(errors).toEqual([]);
  });

  test("keyboard alone fills and sends the form", async ({ page }) => {
    await postFrom(page, ownAddress());
    await page.goto("/contact");
    await page.getByLabel("Full name", { exact: true }).focus();
    await page.keyboard.type("Ada Lovelace");
    await page.keyboard.press("Tab");
    await page.keyboard.type("ada@example.com");
    await page.keyboard.press("Tab"); // phone: left empty for now
    await page.keyboard.press("Tab");
    await expect(page.getByLabel("Subject", { exact: true })).toBeFocused();
    await page.keyboard.type("Loans");
    await expect(page.getByLabel("Subject", { exact: true })).toHaveValue("loan");
    await page.keyboard.press("Tab");
    await page.keyboard.type("I would like to refinance my car loan.");
    await page.keyboard.press("Tab");
    await expect(page.getByRole("radio", { name: "Email" })).toBeFocused();
    await page.keyboard.press("ArrowRight");
    await expect(page.getByRole("radio", { name: "Phone" })).toBeChecked();
    await page.keyboard.press("Tab");
    await expect(page.getByRole("button", { name: "Send message" })).toBeFocused();
    await page.keyboard.press("Enter");

    // A reply by phone needs a number: focus goes to it.
    const phone = page.getByLabel(/^Phone number/);
    await expect(phone).toBeFocused();
    await expect(phone).toHaveAccessibleDescription(/Enter a phone number so we can call you/);
    await page.keyboard.type("(555) 010-4477");
    await page.keyboard.press("Enter");
    await expect(page.getByRole("heading", { name: "Thank you, Ada. Your message has been sent." })).toBeFocused();
    await expect(page.getByText("A member of our team will call you within 24 hours.")).toBeVisible();
  });

  test("a filled honeypot gets the same confirmation (and nothing is kept)", async ({ page }) => {
    await postFrom(page, ownAddress());
    await page.goto("/contact");
    const honeypot = page.locator('input[name="website"]');
    await expect(honeypot).toHaveAttribute("tabindex", "-1");
    await expect(honeypot).toHaveAttribute("autocomplete", "off");
    await expect(honeypot).not.toBeInViewport();
    await fillValidMessage(page, "Spam Bot");
    await honeypot.evaluate((el) => ((el as HTMLInputElement).value = "https://cheap-pills.example"));
    await page.getByRole("button", { name: "Send message" }).click();
    await expect(page.getByRole("heading", { name: "Thank you, Spam. Your message has been sent." })).toBeVisible();
  });

  test("/schedule asks for a meeting with the subject chosen and the message started", async ({ page }) => {
    await page.goto("/schedule");
    await expect(page).toHaveURL(/\/contact\?subject=general&meeting=1$/);
    await expect(page.getByText("You are asking to schedule a meeting")).toBeVisible();
    await expect(page.getByLabel("Subject", { exact: true })).toHaveValue("general");
    await expect(page.getByLabel("Message", { exact: true })).toHaveValue(/^I would like to schedule a meeting/);
    await page.goto("/contact?subject=loan");
    await expect(page.getByLabel("Subject", { exact: true })).toHaveValue("loan");
    await expect(page.getByText("You are asking to schedule a meeting")).toHaveCount(0);
    await page.goto("/contact?subject=%FF%FE");
    await expect(page.getByLabel("Subject", { exact: true })).toHaveValue("");
  });

  test("the sixth message from one address in ten minutes is refused with a clear message", async ({
    page,
    baseURL,
  }) => {
    const address = ownAddress();
    const url = new URL("/contact", baseURL);
    const body = Buffer.from(
      new URLSearchParams({
        name: "Ada",
        email: "ada@example.com",
        phone: "",
        subject: "general",
        message: "Hello",
        preferred_contact: "email",
        website: "",
      }).toString(),
    );
    const headers = { origin: url.origin, "content-type": "application/x-www-form-urlencoded" };
    for (let i = 1; i <= 5; i++) {
      const answer = await requestFrom(address, url, "POST", headers, body);
      expect(answer.status, `message ${i}`).toBe(200);
      expect(answer.body.toString(), `message ${i}`).toContain("Your message has been sent");
    }

    // The sixth, sent by a person from the same address.
    await postFrom(page, address);
    await page.goto("/contact");
    await fillValidMessage(page);
    await page.getByRole("button", { name: "Send message" }).click();
    const refusal = page.getByRole("alert").filter({ hasText: "Too many messages from your connection" });
    await expect(refusal).toBeVisible();
    await expect(refusal).toBeFocused();
    await expect(refusal).toContainText("Your message has not been sent");
    await expect(page.getByLabel("Message", { exact: true })).toHaveValue(
      "Please explain the overdraft options on my checking account.",
    );
    await expect(page.getByRole("heading", { name: /Your message has been sent/ })).toHaveCount(0);

    // Without JavaScript the server says the same, with 429 and Retry-After.
    const answer = await requestFrom(address, url, "POST", headers, body);
    expect(answer.status).toBe(429);
    expect(Number(answer.headers["retry-after"])).toBeGreaterThan(0);
    expect(answer.body.toString()).toContain("Too many messages from your connection");
  });

  for (const viewport of [DESKTOP, PHONE]) {
    test(`passes an accessibility scan at ${viewport.width} px, in every state`, async ({ page }) => {
      const errors = watchConsole(page);
      await postFrom(page, ownAddress());
      await page.setViewportSize(viewport);
      await page.goto("/contact?subject=general&meeting=1");
      await expectNoAxeViolations(page);
      await page.getByLabel("Message", { exact: true }).fill("");
      await page.getByRole("button", { name: "Send message" }).click();
      await expect(page.getByLabel("Full name", { exact: true })).toBeFocused();
      await expectNoAxeViolations(page);
      await fillValidMessage(page);
      await page.getByRole("button", { name: "Send message" }).click();
      await expect(page.getByRole("heading", { name: /Your message has been sent/ })).toBeVisible();
      await expectNoAxeViolations(page);
      expect(errors).toEqual([]);
    });
  }
});

test.describe("contact page without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the server shows each field's message, keeps the values, then accepts the corrected form", async ({ page }) => {
    await postFrom(page, ownAddress());
    await page.goto("/contact");
    await page.getByLabel("Full name", { exact: true }).fill("Ada Lovelace");
    await page.getByLabel("Email address", { exact: true }).fill("ada@example");
    await page.getByLabel("Message", { exact: true }).fill("Kept after the error.");
    await page
      .locator("label")
      .filter({ hasText: /^Phone$/ })
      .click();
    await page.getByRole("button", { name: "Send message" }).click();

    await expect(page.getByText("Please check the 3 highlighted fields.")).toBeVisible();
    await expect(page.getByLabel("Email address", { exact: true })).toHaveAccessibleDescription(
      /Enter a valid email address/,
    );
    await expect(page.getByLabel("Subject", { exact: true })).toHaveAccessibleDescription(/Choose a subject/);
    await expect(page.getByLabel(/^Phone number/)).toHaveAccessibleDescription(
      /Enter a phone number so we can call you/,
    );
    await expect(page.getByLabel("Full name", { exact: true })).toHaveValue("Ada Lovelace");
    await expect(page.getByLabel("Message", { exact: true })).toHaveValue("Kept after the error.");
    await expect(page.getByRole("radio", { name: "Phone" })).toBeChecked();

    await page.getByLabel("Email address", { exact: true }).fill("ada@example.com");
    await page.getByLabel(/^Phone number/).fill("555-010-4477");
    await page.getByLabel("Subject", { exact: true }).selectOption("technical");
    await page.getByRole("button", { name: "Send message" }).click();
    await expect(page.getByRole("heading", { name: "Thank you, Ada. Your message has been sent." })).toBeVisible();
    await expect(page.getByText("A member of our team will call you within 24 hours.")).toBeVisible();
  });
});
