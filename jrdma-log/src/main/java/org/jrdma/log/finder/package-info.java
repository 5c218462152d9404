/**
 * The {@link java.lang.System.LoggerFinder} loaded from the system class path of a service container; it
 * uses JDK types only, as the framework's bundles cannot share classes with it.
 */
package org.jrdma.log.finder;
