package dev.writerfence.agent;

/**
 * A setting of the agent is unknown or breaks its rule; the message names it and what is allowed.
 */
public class AgentConfigurationException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message names the setting, its value and what is allowed
   */
  public AgentConfigurationException(String message) {
    super(message);
  }

  /**
   * @param e a rule of the settings catalog broken, its message naming the key, value and rule
   * @return the same message as the agent's
   */
  public static AgentConfigurationException of(IllegalArgumentException e) {
    return new AgentConfigurationException(
        "writer-fence agent: "
            + String.valueOf(e.getMessage()).replaceFirst("^writer-fence: ", ""));
  }
}
