import { X } from "lucide-react";
import { Link, useNavigate } from "react-router";
import { Dialog, Heading, Modal, ModalOverlay } from "react-aria-components";
import { useHydrated } from "~/components/ui/use-hydrated";
import { useReturnFocus } from "~/components/ui";

/**
 * A dialog whose open state lives in the URL (`?verify=1`, `?create=1`), so it opens from a
 * plain link and renders open from the server. With JavaScript it is a React Aria modal (focus
 * trapped, Escape closes, focus returns to the link that opened it: useReturnFocus); before
 * JavaScript the same content renders as a page panel with a Close link.
 */
export function UrlDialog({
  title,
  closeTo,
  children,
  wide,
}: {
  title: string;
  closeTo: string;
  children: React.ReactNode;
  wide?: boolean;
}) {
  const hydrated = useHydrated();
  const navigate = useNavigate();
  useReturnFocus();
  const width = wide ? "max-w-5xl" : "max-w-2xl";
  if (!hydrated) {
    return (
      <section
        aria-labelledby="url-dialog-title"
        className="fixed inset-0 z-50 overflow-y-auto bg-slate-900/50 p-2 sm:p-6"
      >
        <div className={`mx-auto ${width} rounded-2xl bg-white p-5 shadow-2xl sm:p-8`}>
          <div className="flex items-start justify-between gap-4">
            <h2 id="url-dialog-title" className="text-xl font-semibold text-brand-800">
              {title}
            </h2>
            <Link to={closeTo} className="rounded-lg p-2 text-slate-700 hover:bg-slate-100" aria-label="Close">
              <X className="size-5" aria-hidden="true" />
            </Link>
          </div>
          <div className="mt-4">{children}</div>
        </div>
      </section>
    );
  }
  return (
    <ModalOverlay
      isOpen
      isDismissable
      onOpenChange={(open) => {
        if (!open) navigate(closeTo, { preventScrollReset: true });
      }}
      className="fixed inset-0 z-50 overflow-y-auto bg-slate-900/50 p-2 sm:p-6"
    >
      <Modal className={`mx-auto ${width} rounded-2xl bg-white shadow-2xl outline-none`}>
        <Dialog className="p-5 outline-none sm:p-8">
          {({ close }) => (
            <>
              <div className="flex items-start justify-between gap-4">
                <Heading slot="title" className="text-xl font-semibold text-brand-800">
                  {title}
                </Heading>
                <button
                  type="button"
                  onClick={close}
                  className="rounded-lg p-2 text-slate-700 hover:bg-slate-100"
                  aria-label="Close"
                >
                  <X className="size-5" aria-hidden="true" />
                </button>
              </div>
              <div className="mt-4">{children}</div>
            </>
          )}
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
