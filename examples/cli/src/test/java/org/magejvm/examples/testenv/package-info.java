/** A small test environment registered through the test class path's META-INF/services. */
package org.magejvm.examples.testenv;
