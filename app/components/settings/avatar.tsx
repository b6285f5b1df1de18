import { useState } from "react";
import { cx } from "~/components/ui/field-styles";

/**
 * A person's avatar: their profile image, or their initials when there is none or it fails to
 * load (the initials sit underneath, so a broken image never leaves an empty circle, even before
 * JavaScript runs). Decorative: the name is always written next to it.
 */
export function Avatar({
  initials,
  imageUrl,
  size = "md",
  className,
}: {
  initials: string;
  imageUrl: string | null;
  size?: "sm" | "md" | "lg";
  className?: string;
}) {
  const [broken, setBroken] = useState<string | null>(null);
  const dimension = size === "lg" ? "size-24 text-2xl" : size === "sm" ? "size-8 text-xs" : "size-9 text-sm";
  const showImage = imageUrl && broken !== imageUrl;
  return (
    <span
      aria-hidden="true"
      className={cx(
        "relative inline-flex shrink-0 items-center justify-center overflow-hidden rounded-full bg-brand-700 font-semibold text-white ring-2 ring-white",
        dimension,
        className,
      )}
    >
      <span>{initials}</span>
      {showImage ? (
        <img
          src={imageUrl}
          alt=""
          className="absolute inset-0 size-full object-cover"
          onError={() => setBroken(imageUrl)}
          data-avatar-image=""
        />
      ) : null}
    </span>
  );
}
