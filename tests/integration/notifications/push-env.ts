import webpush from "web-push";

/**
 * Web Push configured for a test file: imported first, before anything reads the environment
 * (env() is read once). The local push service's origin is allowed as a push service.
 */
const keys = webpush.generateVAPIDKeys();
process.env.VAPID_PUBLIC_KEY = keys.publicKey;
process.env.VAPID_PRIVATE_KEY = keys.privateKey;
export const LOCAL_PUSH_ORIGIN = "http://127.0.0.1:9";
process.env.WEB_PUSH_EXTRA_ORIGINS = LOCAL_PUSH_ORIGIN;
export const VAPID_PUBLIC_KEY = keys.publicKey;
