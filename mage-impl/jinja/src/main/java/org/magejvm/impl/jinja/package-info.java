/**
 * A small Jinja interpreter for Hugging Face chat templates.
 *
 * <p>It covers the part of Jinja that {@code transformers} chat templates use, rendered the way
 * {@code transformers} renders them: {@code trim_blocks} and {@code lstrip_blocks} on, no autoescaping, the
 * {@code loopcontrols} extension, a {@code tojson} filter that writes like Python's {@code json.dumps} without
 * ASCII escaping, and the globals {@code raise_exception}, {@code strftime_now}, {@code namespace}, {@code range}
 * and {@code dict}. Values follow Python semantics (string methods, slicing, truthiness, {@code str()} and
 * {@code repr()} output). Anything outside that subset fails with a {@link
 * org.magejvm.impl.jinja.TemplateException} naming the construct and its line and column.
 *
 * <p>Entry point: {@link org.magejvm.impl.jinja.JinjaTemplate}.
 */
package org.magejvm.impl.jinja;
