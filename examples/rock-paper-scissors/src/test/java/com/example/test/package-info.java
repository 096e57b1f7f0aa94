/** Test providers that live outside {@code org.magejvm}, as a third party's would. */
package com.example.test;
