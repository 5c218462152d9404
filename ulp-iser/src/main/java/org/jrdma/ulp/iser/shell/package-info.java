/** Gogo commands of the iSER bundle: {@code targetcli}, {@code iscsiadm}, {@code iser_io}. Private. */
package org.jrdma.ulp.iser.shell;
