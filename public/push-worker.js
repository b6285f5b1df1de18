/*
 * Mutual's service worker (docs/decisions/0023-web-push.md): it only shows pushes. Each push is the
 * JSON the push-delivery job encrypted for this browser: { title, body, url, tag }, the words of a
 * notification in the member's bell. The tag is the notification's, so one pushed twice shows once.
 * Nothing is cached and no request goes through this worker.
 */
self.addEventListener("push", (event) => {
  let message;
  try {
    message = event.data ? event.data.json() : null;
  } catch {
    message = null;
  }
  const title = message && typeof message.title === "string" ? message.title : "New notification";
  event.waitUntil(
    self.registration.showNotification(title, {
      body: message && typeof message.body === "string" ? message.body : "",
      tag: message && typeof message.tag === "string" ? message.tag : undefined,
      icon: "/favicon.svg",
      data: { url: message && typeof message.url === "string" && message.url.startsWith("/") ? message.url : "/dashboard/notifications" },
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(event.notification.data?.url ?? "/dashboard/notifications", self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      const open = windows.find((w) => w.url.startsWith(self.location.origin));
      return open ? open.navigate(url).then((w) => (w ?? open).focus()) : self.clients.openWindow(url);
    }),
  );
});
