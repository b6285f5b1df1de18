import { redirect } from "react-router";

/** /register is the old name of the application; it redirects to /signup. */
export function loader() {
  throw redirect("/signup", 301);
}

export default function Register() {
  return null;
}
