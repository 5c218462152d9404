/** The log:tail and log:level Gogo commands. */
package org.jrdma.log.shell;
