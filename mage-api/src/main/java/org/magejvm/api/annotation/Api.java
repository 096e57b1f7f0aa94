package org.magejvm.api.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a public type (or a member) that a host application or a plugin author is meant to use, with how settled it
 * is. A public type without this mark is internal: public only because another package of the library needs it, and
 * free to change or disappear in any release. A nested type and the members of a marked type share its status
 * unless they carry a mark of their own. docs/architecture.md lists the marked types.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
@Api(status = Api.Status.STABLE)
public @interface Api {

  /** @return how settled the marked element is */
  Status status();

  /** How settled a marked element is. */
  enum Status {
    /**
     * Meant for hosts and plugins and kept compatible: a change is deliberate, named in the commit and the docs, and
     * where possible the old form stays, deprecated, for a release.
     */
    STABLE,
    /** Meant for hosts, but still changing (for example while training lands); it may change in any release. */
    EXPERIMENTAL,
    /** Public only because another module of the library needs it; hosts should not use it. */
    INTERNAL
  }
}
